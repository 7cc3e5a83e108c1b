#include "cmd_curve.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <regex>

#include "config/platform_file.hpp"
#include "config/recorded_manifest.hpp"
#include "model/collective_defaults.hpp"
#include "report/writers.hpp"
#include "util/error.hpp"

namespace tpsim {
namespace {

// A log with no curve to read, in a run that succeeds: said as a skip, not as an error.
std::string skipped(const InputError& e) { return e.where().file + ": skipped, " + e.message(); }

// The GPU the log ran on: --gpu, the Rank lines, a '# hardware: 2x NAME, ...' comment, the platform.
GpuChoice choose_gpu(const CurveSetup& setup, const CurveLogInput& in) {
  GpuChoice g;
  std::smatch m;
  const std::string rank_gpu = in.log->gpu_name.substr(0, in.log->gpu_name.find(" + "));
  if (setup.gpu) g = {setup.gpu, "--gpu"};
  else if (const GpuSpec* s = find_gpu_any_name(rank_gpu); s && !rank_gpu.empty()) g = {s, "the log's Rank lines: " + rank_gpu};
  else if (std::regex_search(in.text, m, std::regex(R"(#\s*hardware:\s*(?:\d+\s*x\s*)?([^,(\n]+))")) && find_gpu_any_name(m[1].str()))
    g = {find_gpu_any_name(m[1].str()), "the log's '# hardware:' comment: " + m[1].str()};
  else if (in.collectives && !in.pair.empty())
    g = {in.collectives->topology().platform().gpu(in.pair[0])->spec, "assumed: the GPU of " + in.platform + " (the log names none the GPU table knows)"};
  if (!g.spec) return g;
  if (in.calibration && in.calibration->hbm_copy_Bps) {
    g.hbm_Bps = *in.calibration->hbm_copy_Bps, g.hbm_source = "measured copy bandwidth (--hbm)";
  } else {
    g.hbm_Bps = g.spec->hbm_achievable_Bps, g.hbm_source = "the GPU table's achievable HBM: " + g.spec->source;
  }
  return g;
}

std::vector<CollectiveRegime> model_regimes(const CurveReading& c, const ModelCard& model) {
  return {regime_of(c, "decode B=1", allreduce_size_B(model, 1)), regime_of(c, "decode B=64", allreduce_size_B(model, 64)),
          regime_of(c, fmt::format("prefill {} tokens", CURVE_CONTEXT_TOKENS), allreduce_size_B(model, CURVE_CONTEXT_TOKENS))};
}

// The paths of the box's first pair with P2P on and staged, in words: what explains a gap.
std::string platform_paths(const std::string& platform_path, const std::vector<int>& pair) {
  if (platform_path.empty() || pair.size() < 2) return "";
  std::string out;
  for (const char* level : {"", "OFF"}) {
    const Topology topo(load_platform_file(platform_path), HardwareSpec{}, level);
    const GpuPath& p = topo.path(pair[0], pair[1]);
    out += fmt::format("; {} on {}: {} {} leg(s), narrowest link {:.1f} GB/s", *level ? "P2P off" : "as the platform runs it", platform_path,
                       p.staged ? "host-staged," : "peer-to-peer,", p.legs.size(), p.bottleneck_Bps / 1e9);
  }
  return out;
}

}  // namespace

void add_curve_options(CLI::App& app, CurveOptions& o) {
  app.add_option("--model", o.model_path,
                 fmt::format("model card for the TP=2 decode verdict (Eq. 1.4.7) and the all-reduce regimes (default {})", DEFAULT_CURVE_MODEL));
  app.add_option("--plot", o.plot_path, "write the curves as SVG: bus bandwidth and time vs size, knee and S* marked");
  app.add_option("--gpu", o.gpu_name, "the GPU the logs (tpsim fit: and the GEMM/HBM tables) ran on, when they do not say (GPU table name or nvidia-smi's)");
}

CurveSetup prepare_curve_reading(const CurveOptions& o) {
  CurveSetup s;
  if (!o.plot_path.empty()) {
    if (std::filesystem::path(o.plot_path).extension() != ".svg") throw InputError({o.plot_path}, "--plot writes SVG: give a file name ending in .svg");
    check_output_path(o.plot_path);
  }
  if (!o.gpu_name.empty() && !(s.gpu = find_gpu_any_name(o.gpu_name)))
    throw ValueError(fmt::format("--gpu: '{}' is not in the GPU table{}", o.gpu_name, gpu_name_hint(o.gpu_name)));
  s.model_path = o.model_path.empty() ? DEFAULT_CURVE_MODEL : o.model_path;
  s.model_source = o.model_path.empty() ? "default" : "--model";
  std::error_code ec;
  if (o.model_path.empty() && !std::filesystem::exists(s.model_path, ec)) {
    s.model_missing = fmt::format("no model: the default card {} is not here; give --model CARD", DEFAULT_CURVE_MODEL);
    return s;
  }
  s.model = load_model_card(s.model_path);
  return s;
}

namespace {

// The model's part of a reading: regimes, Eq. 1.4.7 and the simulated step.
void read_model_part(LogReading& l, const CurveSetup& setup, const CurveLogInput& in) {
  const ModelCard& model = *setup.model;
  l.regimes = model_regimes(l.curve, model);
  if (l.curve.knee_B && (*l.curve.knee_B > 3 * l.curve.s_star_B || *l.curve.knee_B < l.curve.s_star_B / 3))
    l.notes.push_back(fmt::format("the knee is {:.2f} x S*: this curve is not one alpha-BW line (NCCL changes protocol or algorithm with size: "
                                  "LL to Simple, tree or NVLS on many ranks), so the measured knee, not S*, is where it leaves the latency regime",
                                  *l.curve.knee_B / l.curve.s_star_B));
  const GpuChoice gpu = choose_gpu(setup, in);
  if (in.log->op != CollectiveOp::all_reduce) l.estimate_missing = fmt::format("the log measures {}; Eq. 1.4.7 needs all-reduce times", collective_op_name(in.log->op));
  else if (gpu.spec) l.estimate = estimate_tp2_decode(l.curve, model, gpu);
  else l.estimate_missing = "the log names no GPU the GPU table knows; give --gpu NAME (or --platform)";
  if (in.log->gpus_per_thread > 1 && !nccl_group_launch(in.log->nccl_version))
    l.notes.push_back(fmt::format("the log ran one thread on {} GPUs (nccl-tests -g {}): its small-message times include serial launches, "
                                  "so alpha_eff may be above what an engine with a process per GPU pays",
                                  in.log->gpus_per_thread, in.log->gpus_per_thread));
  if (gpu.spec && model.weight_bytes() > gpu.spec->memory_B)
    l.notes.push_back(fmt::format("{} holds {:.2f} GB of weights and one {} has {:.1f} GB: TP=1 does not fit, its figures are what the step "
                                  "would take if it did",
                                  model.name, model.weight_bytes() / 1e9, gpu.spec->name, gpu.spec->memory_B / 1e9));
  if (!in.collectives) {
    l.simulation_missing = in.simulation_missing;
    return;
  }
  const GpuSpec& spec = *in.collectives->topology().platform().gpu(in.pair[0])->spec;
  if (gpu.spec && gpu.spec != &spec) l.notes.push_back(fmt::format("the simulated step runs on the platform's {}, not {}", spec.name, gpu.spec->name));
  const GpuModel gm = gpu_model(spec, Scenario{}, in.calibration, model.compute_bytes(), model.kv_bytes_per_value);
  l.simulation = simulate_decode(model, gm, *in.collectives, in.pair, 1, CURVE_CONTEXT_TOKENS);
  l.simulation->platform = in.platform;
}

}  // namespace

LogReading read_log_curve(const CurveSetup& setup, const CurveLogInput& in) {
  LogReading l;
  l.curve = read_curve(*in.log, in.path_class);
  l.model_curve_name = in.model_curve_name;
  l.model_curve = in.model_curve;
  if (!setup.model) {
    l.estimate_missing = l.simulation_missing = setup.model_missing;
    return l;
  }
  try {
    read_model_part(l, setup, in);
  } catch (const ValueError& e) {  // e.g. a model TP=2 cannot shard: the curve is still read
    l.estimate_missing = l.simulation_missing = fmt::format("{}: {}", setup.model_path, e.what());
    l.estimate.reset(), l.simulation.reset();
  }
  return l;
}

CurveReport curve_report(const CurveSetup& setup, std::vector<LogReading> logs, std::vector<std::string> unread) {
  CurveReport r;
  r.model = setup.model ? setup.model->name : "";
  r.model_path = setup.model_path;
  r.model_source = setup.model_source;
  r.logs = std::move(logs);
  r.unread = std::move(unread);
  std::vector<CurveReading> curves;
  for (const auto& l : r.logs) curves.push_back(l.curve);
  r.gaps = mode_gaps(curves);
  return r;
}

void write_curve_plot(const CurveReport& r, const std::string& plot_path) {
  if (!plot_path.empty()) write_file_atomically(plot_path, render_curve_svg(r));
}

CurveReport read_fitted_curves(const CurveSetup& setup, const std::vector<FittedLog>& logs, const std::string& calibration_yaml,
                               const std::string& platform_path, const std::vector<int>& gpus) {
  const Calibration cal = parse_calibration(calibration_yaml, "the fitted calibration");
  std::vector<LogReading> readings;
  std::vector<std::string> unread;
  std::vector<std::pair<std::string, std::vector<int>>> machines;
  for (const auto& f : logs) {
    CurveLogInput in{&f.log, f.text, f.path_class, "fitted", {}, nullptr, &cal, {}, platform_path, ""};
    for (const auto& p : f.fit.points) in.model_curve.emplace_back(p.size_B, p.predicted_s);
    std::vector<int> group = gpus;
    std::string platform_note;
    if (in.platform.empty())
      if (auto m = find_recorded_machine(f.log.file)) {
        in.platform = m->platform, group = m->gpus;
        platform_note = fmt::format("the simulated step runs on {}, the platform {} names for this log (--platform overrides)", m->platform, m->manifest);
      }
    std::unique_ptr<Topology> topo;
    std::unique_ptr<CollectiveModel> cm;
    if (in.platform.empty()) in.simulation_missing = "no platform: give --platform P.xml --gpus A,B (or list the log in a manifest.yaml beside it)";
    else if (group.size() < 2) in.simulation_missing = "the platform's GPU list has fewer than 2 GPUs";
    else {
      in.pair = {group[0], group[1]};
      topo = std::make_unique<Topology>(load_platform_file(in.platform), HardwareSpec{}, f.path_class == "SHM" ? "OFF" : "");
      cm = std::make_unique<CollectiveModel>(*topo, CollectiveSpec{}, &cal);
      in.collectives = cm.get();
    }
    try {
      readings.push_back(read_log_curve(setup, in));
      if (!platform_note.empty() && readings.back().simulation) readings.back().notes.push_back(platform_note);
      machines.emplace_back(in.platform, in.pair);
    } catch (const InputError& e) {
      unread.push_back(skipped(e));  // the fit stands; this log just has no knee to read
    }
  }
  CurveReport r = curve_report(setup, std::move(readings), std::move(unread));
  for (auto& g : r.gaps)
    for (std::size_t i = 0; i < r.logs.size(); ++i)
      if (r.logs[i].curve.file == g.staged_file) g.explanation += platform_paths(machines[i].first, machines[i].second);
  return r;
}

CurveReport read_compared_curve(const CurveSetup& setup, const fit::NcclLog& log, const std::string& text,
                                const std::vector<fit::FitPoint>& simulated, const Topology& topo, const CollectiveSpec& spec,
                                const Calibration* calibration, const std::vector<int>& gpus, const std::string& platform_path) {
  CollectiveSpec engine_spec;
  engine_spec.p2p_level = spec.p2p_level;
  const CollectiveModel decode_cm(topo, engine_spec, calibration);
  const GroupSummary g = decode_cm.summary(log.op, gpus);
  CurveLogInput in{&log, text, spec.p2p_level == "OFF" ? "SHM" : class_key(g.worst_class, g.staged), "simulated", {}, nullptr, calibration, {},
                   platform_path, ""};
  for (const auto& p : simulated) in.model_curve.emplace_back(p.size_B, p.predicted_s);
  if (gpus.size() < 2) in.simulation_missing = "--gpus lists one GPU: a TP=2 step needs two";
  else in.collectives = &decode_cm, in.pair = {gpus[0], gpus[1]};
  try {
    return curve_report(setup, {read_log_curve(setup, in)}, {});
  } catch (const InputError& e) {  // the comparison stands; this log just has no knee to read
    return curve_report(setup, {}, {skipped(e)});
  }
}

}  // namespace tpsim
