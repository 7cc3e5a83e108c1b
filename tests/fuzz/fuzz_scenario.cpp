// Fuzz target: scenario YAML, read with load_scenario. The input is written where a scenario
// lives (scenarios/ or tests/bad_input/, in a scratch copy of the tree whose platforms/,
// workloads/ and tests/data/ point at the real ones) so the seeds' relative paths resolve.
// A scenario that loads then goes through what `tpsim` does before it simulates, engine-free:
// model card, platform, calibration, every configuration's TP degree and GPU paths, the plan of
// the reference decode step and prefill (for the scenario and each sweep value), and the
// requests when there are few. Times must be finite and non-negative; requests ordered.
#include <cmath>

#include "config/calibration.hpp"
#include "config/model_card.hpp"
#include "config/platform_file.hpp"
#include "config/scenario.hpp"
#include "fuzz_common.hpp"
#include "model/step_cost.hpp"
#include "workloads/requests.hpp"

using namespace tpsim;
namespace fs = std::filesystem;

namespace {

const fs::path& tree() {
  static const fs::path root = [] {
    const fs::path src = TPSIM_SOURCE_DIR, r = fuzz::scratch_dir() / "tree";
    fs::create_directories(r / "scenarios");
    fs::create_directories(r / "tests" / "bad_input");
    for (const char* d : {"platforms", "workloads", "calibrate"}) fs::create_directory_symlink(src / d, r / d);
    fs::create_directory_symlink(src / "tests" / "data", r / "tests" / "data");
    for (const auto& e : fs::directory_iterator(src / "tests" / "bad_input"))
      fs::create_symlink(e.path(), r / "tests" / "bad_input" / e.path().filename());  // the input is fuzz.yaml
    return r;
  }();
  return root;
}

void check_time(double t, const char* what) {
  if (!(std::isfinite(t) && t >= 0)) fuzz::finding(std::string(what) + " is negative or not finite: " + std::to_string(t));
}

// What run_scenario checks and plans before the engine runs, for one scenario (or sweep point).
void dry_run(const Scenario& s, const ModelCard& model, const PlatformDesc& platform, const Calibration* cal) {
  Topology topo(platform, s.hardware, s.collectives.p2p_level);
  CollectiveModel cm(topo, s.collectives, cal);
  for (const auto& c : s.configs) {
    if (c.layout.empty()) continue;  // `layout: auto`: placed by the engine's runner
    fuzz::accept_input_errors([&] {
      check_tp(model, c.tp);
      for (const auto& replica : c.layout) {
        for (int g : replica)
          if (!platform.gpu(g)) return;  // the runner reports it
        for (std::size_t i = 0; i + 1 < replica.size() + (replica.size() > 1); ++i)
          topo.path(replica[i], replica[(i + 1) % replica.size()]);
      }
      const GpuModel gm = gpu_model(*platform.gpu(c.layout[0][0])->spec, s, cal, model.compute_bytes(), model.kv_bytes_per_value);
      const long prompt = std::lround(s.workload.prompt.value);
      const std::vector<SequenceWork> decode(s.workload.batch, {prompt, 1}), prefill(s.workload.batch, {0, prompt});
      check_time(plan_step(step_ops(model, c.tp, decode, c.pp), gm, cm, c.layout[0]).closed_form_s(), "a decode step");
      check_time(plan_step(step_ops(model, c.tp, prefill, c.pp), gm, cm, c.layout[0]).closed_form_s(), "a prefill");
    });
  }
  const WorkloadSpec& w = s.workload;
  // `configs: auto` lists none until the runner searches: one replica's arrivals then.
  const int replicas = s.configs.empty() ? 1 : std::max<int>(1, int(s.configs.front().layout.size()));
  const double expected = w.arrivals == ArrivalKind::closed ? double(w.batch) * replicas
                          : w.requests > 0                  ? double(w.requests)
                                                            : w.rate_per_s * w.duration_s;
  if (w.arrivals == ArrivalKind::trace || expected > 10000) return;
  double last = 0;
  for (const Request& r : generate_requests(w, s.seed, replicas)) {
    check_time(r.arrival_s, "an arrival");
    if (r.arrival_s < last || r.prompt_tokens < 1 || r.output_tokens < 1) fuzz::finding("requests out of order or empty");
    last = r.arrival_s;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const fs::path where = text.find("../../") != std::string::npos ? tree() / "tests" / "bad_input" : tree() / "scenarios";
  const std::string path = fuzz::write_file(where / "fuzz.yaml", data, size);
  fuzz::accept_input_errors([&] {
    const Scenario s = load_scenario(path);
    const ModelCard model = load_model_card(s.model_path, s.dtype, s.kv_cache_dtype);
    const PlatformDesc platform = load_platform_file(s.platform_path);
    std::optional<Calibration> cal;
    if (!s.calibration_path.empty()) cal = load_calibration(s.calibration_path);
    dry_run(s, model, platform, cal ? &*cal : nullptr);
    if (!s.sweep) return;
    for (double v : {s.sweep->values.front(), s.sweep->values.back()}) {
      Scenario point = s;
      apply_sweep_value(point, s.sweep->parameter, v);
      dry_run(point, model, platform, cal ? &*cal : nullptr);
    }
  });
  return 0;
}
