// tpsim_bench: speed figures, as ratios within one run (this machine is shared and noisy).
//   1. collectives per wall second: the closed form (max-min over the group's own flows) against
//      the same collectives run as SimGrid flows;
//   2. serving: bench/serving_10k.yaml (10,000 requests, 3 configurations): simulated output
//      tokens per wall second, wall time and peak memory; then the same with a measured GEMM
//      table (calibrate/fitted/a100.yaml, 7,216 shapes), whose lookups sit on the step's path;
//      what would change the answer is off there, and timed on its own after;
//   3. search: scenarios/search_dgx_a100_llama70b.yaml, every split of a DGX A100 at ten rates,
//      alone and then with its what-would-change probes.
// Run from the project root: ./build/bench/tpsim_bench
#include <chrono>
#include <fmt/format.h>
#include <cstdio>
#include <sys/resource.h>
#include <cstdlib>
#include <string>

#include "config/scenario.hpp"
#include "engine/scenario_runner.hpp"
#include "model/collective_model.hpp"

using namespace tpsim;
using Clock = std::chrono::steady_clock;

static double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
// CPU seconds this process has used (user): on a shared machine, steadier than wall time.
static double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec) + double(u.ru_utime.tv_usec) * 1e-6;
}

// The scenario again with its what-would-change probes (the probes its work budget allows):
// the time beyond the run alone (`wall_s`, `cpu_s`).
static void print_what_would_change(const char* label, Scenario s, double wall_s, double cpu_s) {
  s.what_would_change.enabled = true;
  const auto t0 = Clock::now();
  const double cpu0 = cpu_seconds();
  const ScenarioResult answered = run_scenario(s, {});
  int evaluations = 0;
  for (const auto& c : answered.what_would_change) evaluations += c.evaluations;
  fmt::print("{}: {:.2f} s wall, {:.2f} s CPU more than the run alone, {} evaluations\n", label, seconds_since(t0) - wall_s,
             cpu_seconds() - cpu0 - cpu_s, evaluations);
}

// Every split of a DGX A100 for Llama-3.1-70B at ten arrival rates x 2,000 requests.
// The search alone, then its what-would-change probes on top.
static int search_bench() {
  Scenario search = load_scenario("scenarios/search_dgx_a100_llama70b.yaml");
  search.what_would_change.enabled = false;
  const auto t0 = Clock::now();
  const double cpu0 = cpu_seconds();
  const ScenarioResult found = run_scenario(search, {});
  const double wall_s = seconds_since(t0), cpu_s = cpu_seconds() - cpu0;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  fmt::print("search:      {} splits x ({} swept rates + the base rate) x {} requests in {:.2f} s wall, {:.2f} s CPU; peak RSS {:.0f} MiB\n",
             found.configs.size(), search.sweep ? search.sweep->values.size() : 0, search.workload.requests, wall_s, cpu_s,
             usage.ru_maxrss / 1024.0);
  print_what_would_change("             what would change on top", search, wall_s, cpu_s);
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "search") return search_bench();
  // 1a. Closed form: fresh plans (no memo) of a 4-rank ring on the design exercise's box.
  const PlatformDesc platform = load_platform_file("platforms/4gpu_nv12_sys.xml");
  Topology topo(platform, {}, "");
  auto t0 = Clock::now();
  int plans = 0;
  while (seconds_since(t0) < 1.0) {
    CollectiveModel cm(topo, {}, nullptr);
    for (int i = 0; i < 100; ++i, ++plans) cm.plan(CollectiveOp::all_reduce, 8192.0 * (i + 1), {0, 1, 2, 3});
  }
  const double closed_rate = plans / seconds_since(t0);
  fmt::print("closed form: {:.0f} collective plans per wall second (4-rank ring, 6 flows, fresh plans)\n", closed_rate);

  // 1b. Flow level: the design exercise with every collective as SimGrid flows.
  Scenario s = load_scenario("scenarios/4gpu_nv12_sys.yaml");
  RunOptions flows;
  flows.force_flows = true;
  t0 = Clock::now();
  const ScenarioResult r = run_scenario(s, flows);
  const double wall = seconds_since(t0);
  long collectives = 0;
  for (const auto& c : r.configs) collectives += c.flow_collectives;
  fmt::print("flow level:  {:.0f} collectives per wall second as SimGrid flows ({} collectives in {:.2f} s); closed form is {:.0f}x faster\n",
             collectives / wall, collectives, wall, closed_rate / (collectives / wall));

  // 2. Serving speed: one SimGrid event per step (as before fast-forward), then fast-forward.
  // What would change the answer is timed on its own (below): these runs time the serving engine.
  Scenario serving = load_scenario("bench/serving_10k.yaml");
  serving.what_would_change.enabled = false;
  RunOptions stepping;
  stepping.fast_forward = false;
  t0 = Clock::now();
  double cpu0 = cpu_seconds();
  const ScenarioResult stepped = run_scenario(serving, stepping);
  const double stepping_wall = seconds_since(t0), stepping_cpu = cpu_seconds() - cpu0;
  t0 = Clock::now();
  cpu0 = cpu_seconds();
  const ScenarioResult sr = run_scenario(serving, {});
  const double serving_wall = seconds_since(t0), serving_cpu = cpu_seconds() - cpu0;
  double tokens = 0;
  for (const auto& c : sr.configs)
    for (const auto& q : c.records) tokens += double(q.output_tokens);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  fmt::print("serving:     {} requests x {} configurations in {:.2f} s wall, {:.2f} s CPU (stepping one event per step: {:.2f} s wall, {:.2f} s CPU): "
             "{:.0f} simulated output tokens per wall second; peak RSS {:.0f} MiB\n",
             serving.workload.requests, serving.configs.size(), serving_wall, serving_cpu, stepping_wall, stepping_cpu, tokens / serving_wall,
             usage.ru_maxrss / 1024.0);
  bool same = stepped.configs.size() == sr.configs.size();
  for (std::size_t i = 0; same && i < sr.configs.size(); ++i) same = stepped.configs[i].ttft_s.p99 == sr.configs[i].ttft_s.p99;
  fmt::print("             fast-forward and stepping agree on every TTFT p99: {}\n", same ? "yes" : "NO");

  Scenario calibrated = serving;
  calibrated.calibration_path = "calibrate/fitted/a100.yaml";
  t0 = Clock::now();
  run_scenario(calibrated, {});
  const double calibrated_wall = seconds_since(t0);
  fmt::print("serving with a GEMM table: {:.2f} s wall, {:.2f}x the datasheet run\n", calibrated_wall, calibrated_wall / serving_wall);

  print_what_would_change("what would change (same scenario)", serving, serving_wall, serving_cpu);

  // 3. Search, in a process of its own (one SimGrid platform per process).
  std::fflush(stdout);
  return std::system((std::string(argv[0]) + " search").c_str()) == 0 ? 0 : 1;
}
