// Invariants of whole runs on SimGrid, checked on generated scenarios. SimGrid allows one
// Engine (and here one platform) per process, so each test case is its own process
// (doctest_discover_tests) with its own random box (random_cases.hpp), and varies models, TP
// layouts, workloads and link bandwidths (the scenario's link overrides) over CASES runs:
//   * every request that arrives completes or is reported dropped, and Little's law holds;
//   * a replica's results do not change when a replica on links it does not share is added;
//   * they do change (get slower) when the added replica shares a link that limits it.
#include <doctest/doctest.h>

#include "../scratch_dir.hpp"

#include <filesystem>
#include <fstream>
#include <set>
#include <unistd.h>

#include "engine/scenario_runner.hpp"
#include "model/collective_model.hpp"
#include "random_cases.hpp"

using namespace tpsim;
using namespace tpsim::prop;
namespace fs = std::filesystem;

namespace {

constexpr int CASES = 200;

fs::path scratch() { return tpsim::test::scratch_dir(); }

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

// A box for the whole process: 8 GPUs on two sockets, NVLink on random pairs, big GPUs (so that
// random models fit), P2P as NCCL's default level.
struct Box {
  BoxShape shape;
  PlatformDesc platform;
  std::string file;
  explicit Box(std::uint64_t seed) {
    Rng r(seed);
    shape = random_shape(r, 8, 8);
    shape.sockets = 2;
    shape.gpu_model = pick(r, std::vector<std::string>{"H200-SXM-141GB", "B200-SXM-180GB"});
    shape.p2p = true;
    shape.p2p_level = "SYS";
    BoxBuilder b(shape, r);
    platform = b.platform();
    file = (scratch() / "box.xml").string();
    write(file, b.xml());
  }
};

// A model whose weights take at most a third of one GPU at `tp`.
ModelCard fitting_model(Rng& r, const GpuSpec& gpu, int tp) {
  while (true) {
    ModelCard m = random_model(r);
    const std::vector<int> tps = valid_tps(m, 8);
    if (std::find(tps.begin(), tps.end(), tp) == tps.end()) continue;
    if (weight_bytes_per_rank(m, tp) < gpu.memory_B / 3) return m;
  }
}

Scenario base_scenario(const Box& box, const ModelCard& model, std::uint64_t seed) {
  Scenario s;
  s.file = (scratch() / "case.yaml").string();
  s.name = fmt::format("case {}", seed);
  s.platform_path = box.file;
  s.model_path = (scratch() / "model.yaml").string();
  write(s.model_path, model_yaml(model));
  s.seed = seed;
  return s;
}

ConfigSpec config(const std::string& name, int tp, std::vector<std::vector<int>> layout) {
  ConfigSpec c;
  c.name = name;
  c.tp = tp;
  c.layout = std::move(layout);
  return c;
}

const ConfigResult& result(const ScenarioResult& r, const std::string& name) {
  for (const auto& c : r.configs)
    if (c.name == name) return c;
  FAIL("no config " << name);
  return r.configs.front();
}

// Completion times of replica 0's requests, in completion order.
std::vector<double> replica0(const ConfigResult& c) {
  std::vector<double> t;
  for (const auto& rec : c.records)
    if (rec.replica == 0) t.push_back(rec.first_token_s), t.push_back(rec.finish_s);
  return t;
}

// Directed links (as resources) a group's collectives use.
std::set<int> resources(const CollectiveModel& cm, const std::vector<int>& group) {
  std::set<int> out;
  for (const auto& l : cm.links_used(group)) out.insert(cm.resource_of(l));
  return out;
}

bool disjoint(const std::set<int>& a, const std::set<int>& b) {
  for (int x : a)
    if (b.count(x)) return false;
  return true;
}

}  // namespace

TEST_CASE("engine property: every request completes or is dropped, and Little's law holds") {
  const Box box(101);
  long runs = 0, dropped = 0, completed = 0;
  for (int i = 0; i < CASES; ++i) {
    Rng r(10000 + i);
    const int tp = pick(r, std::vector<int>{1, 2, 4});
    const ModelCard model = fitting_model(r, *box.platform.gpus[0].spec, tp);
    Scenario s = base_scenario(box, model, 10000 + i);
    // Up to 8 / tp replicas on random disjoint GPUs.
    const int replicas = uniform_int(r, 1, 8 / tp);
    const std::vector<int> gpus = random_group(r, 8, replicas * tp);
    std::vector<std::vector<int>> layout;
    for (int k = 0; k < replicas; ++k) layout.emplace_back(gpus.begin() + k * tp, gpus.begin() + (k + 1) * tp);
    s.configs.push_back(config("random", tp, layout));
    WorkloadSpec& w = s.workload;
    w.arrivals = pick(r, std::vector<ArrivalKind>{ArrivalKind::closed, ArrivalKind::poisson, ArrivalKind::gamma, ArrivalKind::constant});
    w.batch = uniform_int(r, 1, 8);
    w.requests = uniform_int(r, 1, 24);
    w.rate_per_s = log_uniform(r, 0.5, 500);
    w.burstiness = log_uniform(r, 0.2, 5);
    w.prompt = coin(r) ? LengthSpec{LengthDist::fixed, double(uniform_int(r, 16, 4096))}
                       : LengthSpec{LengthDist::lognormal, double(uniform_int(r, 64, 2048)), 0, uniform(r, 0.1, 2.0)};
    w.output = {LengthDist::uniform, 1, double(uniform_int(r, 1, 24))};
    s.scheduler.max_num_seqs = uniform_int(r, 1, 64);
    s.scheduler.max_batched_tokens = uniform_int(r, 256, 8192);
    s.scheduler.chunked_prefill = coin(r);
    // A small KV cache sometimes, so that long requests are dropped and others preempted.
    s.scheduler.gpu_memory_utilization = 0.9;
    if (w.arrivals != ArrivalKind::closed && coin(r, 0.4)) {
      // Room for about three mean prompts: the long tail of a wide lognormal cannot fit and is
      // dropped. Activations as the runner estimates them for the reference prefill.
      const double mean = uniform_int(r, 256, 2048), d = model.hidden_size;
      w.prompt = {LengthDist::lognormal, mean, 0, uniform(r, 1.0, 2.0)};
      const double act = w.batch * mean * 2 * (2 * d + double(model.num_heads + 2 * model.num_kv_heads) * model.head_dim / tp +
                                                3.0 * model.intermediate_size / tp) + w.batch * double(model.vocab_size) / tp * 4;
      const double need = weight_bytes_per_rank(model, tp) + act + 3 * mean * kv_bytes_per_token_rank(model, tp);
      s.scheduler.gpu_memory_utilization = std::min(1.0, need / box.platform.gpus[0].spec->memory_B);
    }
    s.scheduler.router = pick(r, std::vector<std::string>{"round_robin", "least_outstanding", "least_kv"});
    for (const char* kind : {"nvlink", "pcie", "pcie_switch", "host_bridge", "upi"})
      if (coin(r, 0.3)) s.hardware.links[kind].bandwidth_Bps = log_uniform(r, 5e9, 500e9);
    s.what_would_change.enabled = false;  // these properties are about the runs, not the probes around them
    const ScenarioResult res = run_scenario(s, {});
    const ConfigResult& c = res.configs[0];
    const long arrived = w.arrivals == ArrivalKind::closed ? long(w.batch) * replicas : w.requests;
    INFO(fmt::format("case {}: TP={} x {}, arrivals {}, {} requests, fits {}", 10000 + i, tp, replicas, int(w.arrivals), arrived,
                     c.memory.fits));
    if (!c.memory.fits) continue;
    ++runs;
    CHECK(c.requests_completed + c.requests_dropped == arrived);
    completed += c.requests_completed, dropped += c.requests_dropped;
    for (const auto& rec : c.records) {
      CHECK(rec.arrival_s >= 0);
      CHECK(rec.scheduled_s >= rec.arrival_s);
      CHECK(rec.first_token_s >= rec.scheduled_s);
      CHECK(rec.finish_s >= rec.first_token_s);
      CHECK(std::isfinite(rec.finish_s));
    }
    if (c.requests_completed > 0) {
      // L = lambda W: time-average number in the system = throughput x mean time in the system.
      CHECK(c.mean_in_system == doctest::Approx(c.throughput_req_s * c.e2e_s.mean).scale(0).epsilon(0.02));
      CHECK(c.ttft_s.p50 >= 0);
      CHECK(c.e2e_s.p99 >= c.ttft_s.p50 * 0);  // percentiles are defined
    }
  }
  MESSAGE(runs << " runs that fit: " << completed << " requests completed, " << dropped << " dropped");
  CHECK(runs >= CASES / 2);
}

TEST_CASE("engine property: adding a replica on links it does not share leaves a replica's results unchanged") {
  const Box box(202);
  Topology topo(box.platform, {}, "");
  CollectiveModel cm(topo, {}, nullptr);
  int checked = 0, flows = 0;
  for (int i = 0; i < CASES; ++i) {
    Rng r(20000 + i);
    const int tp = pick(r, std::vector<int>{1, 2, 2, 4});
    std::vector<int> a, b;
    do {
      const std::vector<int> g = random_group(r, 8, 2 * tp);
      a.assign(g.begin(), g.begin() + tp), b.assign(g.begin() + tp, g.end());
    } while (!disjoint(resources(cm, a), resources(cm, b)));
    const ModelCard model = fitting_model(r, *box.platform.gpus[0].spec, tp);
    Scenario s = base_scenario(box, model, 20000 + i);
    s.configs = {config("alone", tp, {a}), config("with another", tp, {a, b})};
    s.workload.batch = uniform_int(r, 1, 8);
    s.workload.prompt = {LengthDist::fixed, double(uniform_int(r, 16, 4096))};
    s.workload.output = {LengthDist::fixed, double(uniform_int(r, 1, 16))};
    for (const char* kind : {"nvlink", "pcie", "pcie_switch", "host_bridge", "upi"})
      if (coin(r, 0.3)) s.hardware.links[kind].bandwidth_Bps = log_uniform(r, 5e9, 500e9);
    RunOptions opt;
    opt.force_flows = i % 4 == 0;  // a quarter with every collective as SimGrid flows
    s.what_would_change.enabled = false;  // these properties are about the runs, not the probes around them
    const ScenarioResult res = run_scenario(s, opt);
    const ConfigResult &alone = result(res, "alone"), &with = result(res, "with another");
    INFO(fmt::format("case {}: TP={} replica [{}] + [{}], flows {}", 20000 + i, tp, fmt::join(a, ","), fmt::join(b, ","), opt.force_flows));
    REQUIRE(alone.memory.fits);
    CHECK_FALSE(with.shared_links);
    const std::vector<double> t1 = replica0(alone), t2 = replica0(with);
    REQUIRE(t1.size() == t2.size());
    // 1e-8 relative: a few ns on these sub-second times, the order of SimGrid's own event timing
    // precision (precision/timing, 1e-9 s, rounds each of the many events of a run).
    for (std::size_t k = 0; k < t1.size(); ++k) CHECK(t2[k] == doctest::Approx(t1[k]).scale(0).epsilon(1e-8));
    ++checked;
    flows += opt.force_flows;
  }
  MESSAGE(checked << " pairs of replicas on disjoint links (" << flows << " run as flows): replica 0 unchanged");
}

TEST_CASE("engine property: adding a replica that shares a limiting link slows a replica down") {
  const Box box(303);
  Topology topo(box.platform, {}, "");
  CollectiveModel cm(topo, {}, nullptr);
  int checked = 0;
  double least = INFINITY;
  for (int i = 0; i < CASES; ++i) {
    Rng r(30000 + i);
    const int tp = pick(r, std::vector<int>{2, 4});
    std::vector<int> a, b;
    std::vector<int> shared;
    do {
      const std::vector<int> g = random_group(r, 8, 2 * tp);
      a.assign(g.begin(), g.begin() + tp), b.assign(g.begin() + tp, g.end());
      shared.clear();
      const std::set<int> ra = resources(cm, a), rb = resources(cm, b);
      std::set_intersection(ra.begin(), ra.end(), rb.begin(), rb.end(), std::back_inserter(shared));
    } while (shared.empty());
    // Make the kind of one shared link the narrowest of all, so that it limits replica 0.
    const LinkDesc& link = box.platform.links[std::size_t(pick(r, shared) / 2)];
    double narrowest = INFINITY;
    for (const auto& l : box.platform.links) narrowest = std::min(narrowest, l.bandwidth_Bps);
    const ModelCard model = fitting_model(r, *box.platform.gpus[0].spec, tp);
    Scenario s = base_scenario(box, model, 30000 + i);
    s.hardware.links[link_kind_name(link.kind)].bandwidth_Bps = narrowest * uniform(r, 0.2, 0.9);
    s.configs = {config("alone", tp, {a}), config("sharing", tp, {a, b})};
    s.workload.batch = uniform_int(r, 1, 4);
    s.workload.prompt = {LengthDist::fixed, double(uniform_int(r, 512, 4096))};
    s.workload.output = {LengthDist::fixed, double(uniform_int(r, 1, 8))};
    s.what_would_change.enabled = false;  // these properties are about the runs, not the probes around them
    const ScenarioResult res = run_scenario(s, {});
    const ConfigResult &alone = result(res, "alone"), &sharing = result(res, "sharing");
    INFO(fmt::format("case {}: TP={} replica [{}] + [{}] share {} ({})", 30000 + i, tp, fmt::join(a, ","), fmt::join(b, ","), link.id,
                     link_kind_name(link.kind)));
    REQUIRE(alone.memory.fits);
    CHECK(sharing.shared_links);
    const std::vector<double> t1 = replica0(alone), t2 = replica0(sharing);
    REQUIRE(t1.size() == t2.size());
    REQUIRE(!t1.empty());
    // The first token comes after a prefill whose all-reduces now share the link.
    CHECK(t1[0] > 0);
    CHECK(t2[0] > t1[0] * (1 + 1e-6));
    least = std::min(least, t2[0] / t1[0]);
    ++checked;
  }
  MESSAGE(checked << " pairs of replicas sharing a limiting link: TTFT of replica 0 at least x" << least);
}
