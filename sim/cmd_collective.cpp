// `tpsim collective --platform P --gpus 0-7`: a simulated nccl-tests sweep on a platform,
// in the nccl-tests layout so it can be put side by side with a real all_reduce_perf run.
// With --compare LOG it simulates the log's op at the log's sizes and adds, per size, the
// measured and simulated times and their relative error, then the median and worst error.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>
#include <iostream>
#include <optional>
#include <memory>

#include "cmd_common.hpp"
#include "cmd_curve.hpp"
#include "config/calibration.hpp"
#include "config/engine_profile.hpp"
#include "config/p2p_policy.hpp"
#include "fit/collective_fit.hpp"
#include "fit/log_settings.hpp"
#include "fit/nccl_log.hpp"
#include "model/collective_model.hpp"
#include "report/verdict.hpp"
#include "report/writers.hpp"
#include "util/text_file.hpp"
#include "util/units.hpp"

namespace tpsim {
namespace {

// The op a calibration's curves were all fitted on (replaying an all_gather_perf log needs no
// --op); all_reduce when it holds none or several.
CollectiveOp calibrated_op(const Calibration& cal) {
  if (cal.collectives.empty()) return CollectiveOp::all_reduce;
  const CollectiveOp first = cal.collectives.front().op;
  for (const auto& c : cal.collectives)
    if (c.op != first) return CollectiveOp::all_reduce;
  return first;
}

// The measured-vs-simulated lines of --compare, in nccl-tests comment lines so the table above
// stays readable by tools that read nccl-tests output.
std::string comparison(const std::vector<fit::FitPoint>& points, const std::string& log) {
  std::string out = fmt::format("# compared with {} (out-of-place time; error = simulated / measured - 1)\n", log);
  out += "#        size (B)   measured (us)  simulated (us)   error (%)\n";
  for (const auto& p : points)
    out += fmt::format("# {:>15.0f} {:>15.2f} {:>15.2f} {:>+11.1f}\n", p.size_B, p.measured_s * 1e6, p.predicted_s * 1e6,
                       (p.predicted_s / p.measured_s - 1) * 100);
  for (double min_size : {0.0, fit::RESIDUAL_MIN_SIZE_B}) {
    const fit::FitResiduals r = fit::residuals(points, min_size);
    if (r.points == 0) continue;
    out += fmt::format("# {}: median |error| {:.1f}%, worst {:.1f}% at {:.0f} B ({} sizes)\n",
                       min_size > 0 ? "sizes >= 1 KiB" : "all sizes", r.median * 100, r.worst * 100, r.worst_size_B, r.points);
  }
  return out;
}

// The compared log ran on the GPU its Rank lines name: when the GPU table knows it and the
// platform's GPUs are another model, the listed GPUs become the log's (the platform stands in for
// the links only), so a calibration is judged against what ran. Returns the note, or "".
std::string use_logged_gpu(PlatformDesc& platform, const std::vector<int>& gpus, const fit::NcclLog& log, const std::string& log_path) {
  const GpuSpec* logged = find_gpu_any_name(log.gpu_name);
  const GpuDesc* first = platform.gpu(gpus.front());
  if (!logged && !log.gpu_name.empty())
    return fmt::format("{} ran on '{}', which tpsim's GPU table does not know: simulated as the platform's {} (the links are the "
                       "platform's either way)", log_path, log.gpu_name, first->model);
  if (!logged || first->spec == logged) return "";
  const std::string was = first->model;
  for (auto& g : platform.gpus)
    if (std::find(gpus.begin(), gpus.end(), g.index) != gpus.end()) g.model = logged->name, g.spec = logged;
  return fmt::format("{} ran on {}; the platform's GPUs are {}: simulated as {} on the platform's links", log_path, logged->name, was,
                     logged->name);
}

// What the compared log says of where it ran that the simulated group does not match: its Rank lines'
// hosts against the listed GPUs' nodes (a 2-host log on two GPUs of one node ran 87% off with no
// word), and a floor below NCCL's TCP steps where the log said NCCL_IB_DISABLE=1 (a plugin that
// ignored it: 12 us measured where sockets take 115).
std::vector<std::string> where_it_ran_notes(const fit::NcclLog& log, const GroupSummary& g, const CollectivePlan& smallest) {
  std::vector<std::string> notes;
  const bool every_rank_listed = log.ranks_listed >= log.nranks;
  if (log.hosts > 1 && g.nodes == 1)
    notes.push_back(fmt::format("the log's ranks ran on {} hosts (its Rank lines), the listed GPUs on one node of the platform: "
                                "simulated within a node; list GPUs of {} nodes (--gpus) to compare across them", log.hosts, log.hosts));
  else if (log.hosts == 1 && every_rank_listed && g.nodes > 1)
    notes.push_back(fmt::format("the log's {} ranks ran on one host (its Rank lines), the listed GPUs on {} nodes of the platform: "
                                "simulated across nodes", log.nranks, g.nodes));
  const double floor_s = log.rows.front().out_of_place.time_us * 1e-6;  // the caller's log has rows
  if (g.nodes > 1 && g.transport == NetTransport::tcp && floor_s > 0 && floor_s < 0.25 * smallest.time_s())
    notes.push_back(fmt::format("simulated over TCP sockets, yet the log's smallest size took {:.1f} us where sockets take {:.1f} us "
                                "here, a quarter or less: its network most likely ran RDMA (a net plugin that ignores NCCL_IB_DISABLE); --net-transport rdma "
                                "simulates that", floor_s * 1e6, smallest.time_s() * 1e6));
  return notes;
}

// A larger size the log measured in half the time or less: NCCL changed protocol late there (the 2x2
// H100 NVL log's 373 us at 1.0 MB, 157 at 1.1 MB) or the run was disturbed (a B200 all-gather's 1754 us
// at 2 MiB, 934 at 4 MiB). Said once, at the largest fall, so a comparison there is read with care.
std::optional<std::string> time_falls_note(const fit::NcclLog& log) {
  const fit::NcclRow* fall = nullptr;
  double fall_ratio = 0.5;
  for (std::size_t i = 0; i + 1 < log.rows.size(); ++i) {
    const double t0 = log.rows[i].out_of_place.time_us, t1 = log.rows[i + 1].out_of_place.time_us;
    if (t0 > 0 && t1 > 0 && t1 / t0 < fall_ratio) fall = &log.rows[i], fall_ratio = t1 / t0;
  }
  if (!fall) return std::nullopt;
  return fmt::format("the log's time falls from {:.1f} us at {} B to {:.1f} us at {} B (line {}), a larger size in half the time or "
                     "less: NCCL changed protocol late there, or the run was disturbed; read the comparison around it with care",
                     fall->out_of_place.time_us, fall->size_B, (fall + 1)->out_of_place.time_us, (fall + 1)->size_B, (fall + 1)->line);
}

// The launch mode to simulate: GPUs per thread and the NCCL release that launches them.
struct LaunchMode {
  int gpus_per_thread = 1;
  std::string nccl_version;  // "": a current NCCL
  std::string from;          // where the mode came from
};

// The compared log's (nccl-tests -g N, its NCCL version line), else the one every entry of the
// calibration was measured in, else a process per GPU.
LaunchMode default_launch_mode(const fit::NcclLog* log, const std::string& log_path, const Calibration* cal) {
  if (log) return {log->gpus_per_thread, log->nccl_version, "as " + log_path + " ran"};
  if (cal && !cal->collectives.empty()) {
    const auto& first = cal->collectives.front();
    bool same = true;
    for (const auto& c : cal->collectives) same = same && c.gpus_per_thread == first.gpus_per_thread && c.nccl_version == first.nccl_version;
    if (same) return {first.gpus_per_thread, first.nccl_version, "as the calibration's logs ran; --gpus-per-thread 1 for an engine's launch"};
  }
  return {1, "", "default; --gpus-per-thread N simulates nccl-tests -g N"};
}

std::string launch_text(const LaunchMode& m) {
  const std::string nccl = m.nccl_version.empty() ? "" : ", NCCL " + m.nccl_version;
  if (m.gpus_per_thread <= 1) return fmt::format("one process per GPU{} ({})", nccl, m.from);
  const std::string threads = fmt::format("one thread drives {} GPUs (nccl-tests -g {})", m.gpus_per_thread, m.gpus_per_thread);
  if (nccl_group_launch(m.nccl_version))
    return fmt::format("{} as one group launch{}: before 2.9 NCCL_LAUNCH_MODE=GROUP was the default, no serial launches ({})", threads,
                       nccl, m.from);
  return fmt::format("{}, launched one after the other{}{} ({})", threads, nccl,
                     m.nccl_version.empty() ? " (NCCL version not given: a current NCCL's launch)" : "", m.from);
}

// The largest out-of-place bus bandwidth a log printed (B/s; 0 when it printed none).
double largest_busbw_Bps(const fit::NcclLog& log) {
  double best = 0;
  for (const auto& r : log.rows)
    if (r.out_of_place.busbw_GBps > best) best = r.out_of_place.busbw_GBps;
  return best * 1e9;
}

// What --engine changes, and what a kernel sweep leaves out of a serving step.
std::string engine_note(const std::string& engine, CollectiveOp op, const std::optional<CustomAllReduce>& kernel) {
  if (!kernel) return fmt::format("--engine {}: it runs every collective through NCCL, as nccl-tests does", engine);
  if (op != CollectiveOp::all_reduce)
    return fmt::format("--engine {}: its own kernel is an all-reduce; it runs {} through NCCL, as nccl-tests does", engine, collective_op_name(op));
  return fmt::format("--engine {}: its all-reduce kernel ({}) where it runs, NCCL beyond; each time is the kernel's alone, as a "
                     "benchmark loop measures it: in a serving step each collective also waits for its last rank to arrive, which "
                     "tpsim's scenarios add (the engine's arrival spread)",
                     engine, kernel->source);
}

}  // namespace

int collective_command(int argc, char** argv) {
  CLI::App app{"Simulated nccl-tests sweep (times in us, algbw and busbw in GB/s = 1e9 B/s)"};
  std::string platform_path, gpus_text, op_text, min_text = "8B", max_text = "512MiB", p2p = "on", calibration_path,
                                     compare_path, json_path, algorithm = "auto", protocol = "auto";
  double factor = 2;
  int gpus_per_thread = 0;
  std::string nccl_version, net_transport, engine = "nccl";
  bool explain = false;
  app.add_option("--platform", platform_path, "SimGrid platform XML")->required();
  app.add_option("--gpus", gpus_text, "GPU indices, e.g. 0-7 or 0,2")->required();
  app.add_option("--op", op_text, "all_reduce | all_gather | reduce_scatter | all_to_all (default: the op the calibration was fitted on, else all_reduce)");
  app.add_option("--min", min_text, "smallest size (e.g. 8, 1KiB)");
  app.add_option("--max", max_text, "largest size (e.g. 512M, 1GiB)");
  app.add_option("--factor", factor, "size multiplier between rows");
  auto* p2p_opt = app.add_option("--p2p", p2p, "on | off (off = NCCL_P2P_DISABLE=1: staged through host memory)");
  app.add_option("--calibration", calibration_path, "calibration file from tpsim fit");
  app.add_option("--compare", compare_path,
                 "measured nccl-tests log: simulate its op at its sizes and print the error per size (out-of-place time)");
  auto* algorithm_opt =
      app.add_option("--algorithm", algorithm, "auto | ring | tree | direct | nvls (NCCL_ALGO; nvls: NVLS-tree across nodes; default: the compared log's NCCL_ALGO, else auto)");
  auto* protocol_opt = app.add_option("--protocol", protocol, "auto | LL | LL128 | Simple (NCCL_PROTO; default: the compared log's, else auto)");
  app.add_option("--json", json_path, "also write the sweep as JSON (per size: times, algbw and busbw, algorithm, protocol); - prints it in place of the text");
  app.add_option("--gpus-per-thread", gpus_per_thread,
                 "launch mode: N = one thread drives N GPUs (nccl-tests -g N), 1 = a process per GPU (default: the compared "
                 "log's, else the calibration's, else 1)");
  auto* nccl_version_opt = app.add_option("--nccl-version", nccl_version,
                                          "the NCCL release to simulate, e.g. 2.8.3 (default: the compared log's NCCL version line, else the "
                                          "calibration's, else a current one): before 2.9 a thread's GPUs launch as one group, before 2.23 AMD hosts "
                                          "run P2P across SYS at any GPU count");
  app.add_option("--net-transport", net_transport,
                 "rdma | tcp | efa | cxi: how NCCL's network steps travel between nodes (default: the compared log's NCCL_IB_DISABLE=1 or "
                 "network Socket means tcp, network AWS Libfabric efa (cxi where aws-ofi-nccl selected the cxi provider: HPE "
                 "Slingshot, simulated as RDMA), else the platform's net_transport); rdma for a log whose net plugin ignored "
                 "NCCL_IB_DISABLE");
  CurveOptions curve;
  add_curve_options(app, curve);
  app.add_option("--engine", engine,
                 "nccl | vllm | sglang | trtllm | tgi: the all-reduce as that serving engine runs it, its own one-shot / two-shot "
                 "kernel within its limits and NCCL beyond (default nccl, as nccl-tests)");
  app.add_flag("--explain", explain, "print the algorithm, protocol and latency/bandwidth terms per size");
  if (auto rc = parse_command_line(app, argc, argv)) return *rc;
  auto size_of = [](std::string t) {
    if (!t.empty() && std::isdigit(static_cast<unsigned char>(t.back()))) t += "B";
    if (t.back() == 'K' || t.back() == 'M' || t.back() == 'G') t += "iB";  // nccl-tests' -b 8 -e 512M
    return parse_size(t);
  };
  const double lo = size_of(min_text), hi = size_of(max_text);
  if (!(factor > 1) || lo <= 0 || hi < lo) throw ValueError("need 0 < --min <= --max and --factor > 1");
  const std::vector<int> gpus = parse_gpu_list(gpus_text);
  std::unique_ptr<Calibration> cal;
  if (!calibration_path.empty()) cal = std::make_unique<Calibration>(load_calibration(calibration_path));
  // The ops tpsim simulates, by name ("all_reduce", or nccl-tests' "all_reduce_perf").
  auto simulated_op = [](const std::string& name, const char* flag) {
    const std::optional<CollectiveOp> op = fit::op_from_name(name);
    if (!op || !is_swept(*op))
      throw ValueError(fmt::format("{}: tpsim simulates all_reduce, all_gather, reduce_scatter and all_to_all, not {}", flag, name));
    return *op;
  };
  // --op first: a log that names no binary (a tiny-size run whose busbw/algbw reads 0.00) is read
  // as that op; a log that names another one is refused at the line that names it.
  std::optional<CollectiveOp> op_given;
  if (!op_text.empty()) op_given = simulated_op(op_text, "--op");
  std::optional<fit::NcclLog> measured;
  std::string measured_text;
  if (!compare_path.empty())
    measured = fit::parse_nccl_log(measured_text = read_input_file(compare_path, "nccl-tests log"), compare_path, {.op = op_given});
  const CollectiveOp op = op_given     ? *op_given
                          : measured   ? simulated_op(collective_op_name(measured->op), "--compare")
                          : cal        ? simulated_op(collective_op_name(calibrated_op(*cal)), "--op")
                                       : CollectiveOp::all_reduce;
  op_text = collective_op_name(op);
  if (measured && measured->nranks != int(gpus.size()))
    throw ValueError(fmt::format("--compare: {} ran on {} rank{}, --gpus lists {}", compare_path, measured->nranks,
                                 measured->nranks == 1 ? "" : "s", gpus.size()));
  if (p2p != "on" && p2p != "off") throw ValueError("--p2p must be on or off");
  // What the compared log forced NCCL to do, unless the command line says otherwise.
  const fit::LogSettings forced = measured ? fit::log_settings(*measured) : fit::LogSettings{};
  if (!forced.algorithm.empty() && !algorithm_opt->count()) algorithm = forced.algorithm;
  if (!forced.protocol.empty() && !protocol_opt->count()) protocol = forced.protocol;
  const bool log_p2p = !forced.p2p_level.empty() && !p2p_opt->count();
  if (log_p2p && forced.p2p_level == "OFF") p2p = "off";
  check_choice("--algorithm", algorithm, collective_algorithm_names());
  check_choice("--protocol", protocol, collective_protocol_names());
  if (const std::string why = algorithm_protocol_conflict(algorithm, protocol); !why.empty())
    throw ValueError(fmt::format("--protocol {} with --algorithm nvls{}: {}", protocol,
                                 algorithm_opt->count() && protocol_opt->count() ? "" : " (the compared log's NCCL_ALGO / NCCL_PROTO)", why));
  if (!net_transport.empty()) check_choice("--net-transport", net_transport, net_transport_names());
  check_choice("--engine", engine, engine_profile_names());
  if (engine != "nccl" && measured)
    throw ValueError("--engine simulates a serving engine's own all-reduce, --compare an nccl-tests log (NCCL's): give one of them");
  if (!json_path.empty() && json_path != STANDARD_OUTPUT) check_output_path(json_path);
  if (!measured && !(curve.model_path.empty() && curve.plot_path.empty() && curve.gpu_name.empty()))
    throw ValueError("--model, --plot and --gpu read a measured curve: give --compare LOG");
  std::optional<CurveSetup> curve_setup;
  if (measured) curve_setup = prepare_curve_reading(curve);
  if (gpus_per_thread < 0 || gpus_per_thread > int(gpus.size()))
    throw ValueError(fmt::format("--gpus-per-thread must be 1 to {} (the GPUs listed)", gpus.size()));
  if (gpus_per_thread > 0 && gpus.size() % gpus_per_thread != 0)
    throw ValueError(fmt::format("--gpus-per-thread {} does not divide the {} GPUs listed (nccl-tests -g N: every thread drives N GPUs)",
                                 gpus_per_thread, gpus.size()));
  if (nccl_version_opt->count() && !nccl_release(nccl_version))
    throw ValueError(fmt::format("--nccl-version must be a NCCL release such as 2.8.3 (got '{}')", nccl_version));
  LaunchMode launch = default_launch_mode(measured ? &*measured : nullptr, compare_path, cal.get());
  if (gpus_per_thread > 0) launch.gpus_per_thread = gpus_per_thread, launch.from = "given";
  if (nccl_version_opt->count()) {
    const bool over = !launch.nccl_version.empty() && launch.nccl_version != nccl_version;
    launch.from += "; --nccl-version given" + (over ? " over the " + launch.nccl_version + " of " + (measured ? "the log" : "the calibration") : "");
    launch.nccl_version = nccl_version;
  }
  if (measured && measured->nccl_version.empty()) measured->nccl_version = launch.nccl_version;  // the curve reading's launch
  CollectiveSpec spec;
  spec.gpus_per_thread = launch.gpus_per_thread;
  spec.nccl_version = launch.nccl_version;
  spec.algorithm = algorithm;
  spec.protocol = protocol;
  if (p2p == "off") spec.p2p_level = "OFF";
  else if (log_p2p) spec.p2p_level = forced.p2p_level;
  spec.custom_all_reduce = find_engine_profile(engine)->custom_all_reduce;
  PlatformDesc platform = load_platform_file(platform_path);
  if (!net_transport.empty()) platform.net_transport = net_transport;
  else if (!forced.net_transport.empty()) platform.net_transport = forced.net_transport;
  for (int g : gpus)
    if (!platform.gpu(g)) throw ValueError(fmt::format("GPU {} is not in {}", g, platform_path));
  const std::string gpu_note = measured ? use_logged_gpu(platform, gpus, *measured, compare_path) : "";
  Topology topo(std::move(platform), HardwareSpec{}, spec.p2p_level, spec.nccl_version);
  CollectiveModel model(topo, spec, cal.get());
  const int n = int(gpus.size());
  const GroupSummary group = model.summary(op, gpus);
  // "p2p on" is what was asked; a platform whose GPUs have no P2P between them stages it anyway.
  const std::string p2p_text = p2p == "on" && group.staged_edge ? "on, host-staged between these GPUs: see the note" : p2p;
  std::string out = fmt::format("# tpsim {} collective: {} on GPUs {} of {} (p2p {}){}\n# nranks {} (simulated)\n", TPSIM_VERSION,
                                op_text, gpus_text, platform_path, p2p_text, cal ? ", calibration " + calibration_path : "", n);
  out += "# launch: " + launch_text(launch) + "\n";
  // What tpsim assumed or chose for this run, printed and in the JSON: about the compared log, then
  // (after the log's own settings) about the GPUs' paths.
  std::vector<std::string> notes;
  if (!gpu_note.empty()) notes.push_back(gpu_note);
  if (measured && !measured->failure.empty()) notes.push_back(fit::failure_note(*measured));
  if (measured && !measured->shared_gpu.empty()) notes.push_back(fit::shared_gpu_note(*measured));
  if (measured && measured->bw_before_2020) notes.push_back(fit::bw_before_2020_note(*measured));
  if (const auto note = measured ? fit::datatype_note(*measured) : std::nullopt) notes.push_back(*note);
  if (engine != "nccl") notes.push_back(engine_note(engine, op, spec.custom_all_reduce));
  for (const auto& note : notes) out += "# note: " + note + "\n";
  std::vector<std::string> log_notes;  // what the log forced, as simulated (or the flag that replaced it)
  for (const auto& n : forced.notes) {
    const CLI::Option* flag = n.flag.empty() ? nullptr : app.get_option(n.flag);
    log_notes.push_back(flag && flag->count() ? fmt::format("the log ran with {}={}; {} given, it stands", n.setting,
                                                            measured->env.at(n.setting).value, n.flag)
                                              : n.text);
  }
  for (const auto& note : log_notes) out += "# note: " + note + "\n";
  const std::size_t about_log = notes.size();
  if (const std::string note = topo.p2p_default_note(gpus); !note.empty()) notes.push_back(note);
  if (group.staged_edge) notes.push_back(staging_note(*group.staged_edge, group.staging));
  if (const double busbw = measured ? largest_busbw_Bps(*measured) : 0; group.staged_edge && above_staged_legs(*group.staged_edge, busbw))
    notes.push_back(ran_p2p_note(*group.staged_edge, busbw, "the log's largest bus bandwidth"));
  for (std::string& note : model.group_notes(op, gpus)) notes.push_back(std::move(note));
  if (measured && !measured->rows.empty()) {
    for (std::string& note : where_it_ran_notes(*measured, group, model.plan(op, double(measured->rows.front().size_B), gpus)))
      notes.push_back(std::move(note));
    if (auto note = time_falls_note(*measured)) notes.push_back(std::move(*note));
  }
  for (std::size_t i = about_log; i < notes.size(); ++i) out += "# note: " + notes[i] + "\n";
  out += "#\n#                                                              out-of-place                       in-place\n";
  out += "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";
  out += "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";
  double sum_busbw = 0;
  int rows = 0;
  std::string why;
  std::vector<double> sizes;
  if (measured) {
    for (const auto& r : measured->rows) sizes.push_back(double(r.size_B));
  } else {
    for (double size = lo; size <= hi * (1 + 1e-9); size *= factor)
      if (std::floor(size / 4) * 4 > 0) sizes.push_back(std::floor(size / 4) * 4);
  }
  const bool per_rank_count = op != CollectiveOp::all_reduce;  // nccl-tests prints the per-rank count
  // The compared log's datatype, as its rows print it (its element size gives the count).
  const std::string datatype = measured && !measured->rows.empty() ? measured->rows.front().type : "float";
  const int type_bytes = nccl_type_bytes(datatype).value_or(4);
  std::vector<fit::FitPoint> points;
  CollectiveSweep sweep{op_text, platform_path, gpus_text, p2p, calibration_path, compare_path, n, {}};
  sweep.engine = engine;
  sweep.log_settings = log_notes;
  sweep.notes = notes;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double s = sizes[i];
    const CollectivePlan& c = model.plan(op, s, gpus);
    sweep.rows.push_back({s, &c, std::nullopt});
    const double t_us = c.time_s() * 1e6, alg = c.algbw_Bps() / 1e9, bus = c.busbw_Bps() / 1e9;
    const std::string row = fmt::format("{:7.2f} {:7.2f} {:7.2f}", t_us, alg, bus);
    out += fmt::format("{:>12.0f}  {:>12.0f}  {:>8}  {:>6}      -1 {}    N/A {}    N/A\n", s, std::floor(s / type_bytes / (per_rank_count ? n : 1)), datatype,
                       op == CollectiveOp::all_gather || op == CollectiveOp::all_to_all ? "none" : "sum", row, row);
    if (explain) why += fmt::format("#  {:>12.0f} B: {}\n", s, describe_collective(c));
    if (measured && measured->rows[i].out_of_place.time_us > 0) {
      points.push_back({.size_B = s, .measured_s = measured->rows[i].out_of_place.time_us * 1e-6, .predicted_s = c.time_s()});
      sweep.rows.back().measured_s = points.back().measured_s;
    }
    sum_busbw += 2 * bus;
    rows += 2;
  }
  out += "# Out of bounds values : 0 OK\n";
  out += fmt::format("# Avg bus bandwidth    : {:.2f}\n#\n", rows ? sum_busbw / rows : 0.0);
  if (explain) out += "# per size: algorithm/protocol, latency + bus bytes / bus bandwidth (busbw = algbw x bus factor)\n" + why;
  sweep.gpus_per_thread = launch.gpus_per_thread;
  sweep.nccl_version = launch.nccl_version;
  sweep.calibration_use = model.calibration_notes();
  for (const auto& line : sweep.calibration_use) out += "# calibration " + line + "\n";
  for (const auto& line : model.engine_notes()) {
    out += "# " + line + "\n";
    sweep.notes.push_back(line);
  }
  std::string json_text = json_path.empty() ? "" : render_collective_json(sweep, TPSIM_VERSION);
  if (measured) {
    out += comparison(points, compare_path);
    const CurveReport reading = read_compared_curve(*curve_setup, *measured, measured_text, points, topo, spec, cal.get(), gpus, platform_path);
    out += render_curve_text(reading);
    if (!json_text.empty()) json_text = merge_curve_json(json_text, reading);
    write_curve_plot(reading, curve.plot_path);
  }
  if (!json_path.empty()) write_output(json_path, json_text);
  if (json_path != STANDARD_OUTPUT) std::cout << out;
  return 0;
}

}  // namespace tpsim
