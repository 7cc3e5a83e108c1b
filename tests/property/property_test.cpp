// Invariants of the cost model, checked on generated cases (no engine): random models within
// real ranges, random boxes (random_cases.hpp), random TP groups and steps. Each property runs
// CASES cases from a fixed seed, so a failure names a case that fails again on every machine.
//   * more link bandwidth, or less link latency, never makes a step slower;
//   * more HBM bandwidth never makes a decode step slower;
//   * a TP=1 step does not depend on the links (it uses none);
//   * step times and their parts are finite and non-negative;
//   * a collective's bus bandwidth never exceeds the ring's bottleneck link times the protocol's
//     payload fraction (LL 1/2, LL128 120/128, Simple 1) when no calibration is given.
#include <doctest/doctest.h>

#include "model/step_cost.hpp"
#include "random_cases.hpp"

using namespace tpsim;
using namespace tpsim::prop;

namespace {

constexpr int CASES = 250;
constexpr double TOLERANCE = 1e-9;  // relative: the same sums in another order

// One step of one TP group on one box.
struct StepCase {
  std::uint64_t seed = 0;
  ModelCard model;
  BoxShape shape;
  PlatformDesc platform;
  int tp = 1;
  std::vector<int> group;
  std::vector<SequenceWork> work;
  bool decode = true;
  Scenario scenario;  // hardware overrides and engine settings

  std::string describe() const {
    return fmt::format("seed {}: {} GPUs {} ({} socket(s), p2p {}, level {}), model d={} L={} heads={}/{} experts={} {}, TP={} group [{}], {} x {}",
                       seed, shape.gpus, shape.gpu_model, shape.sockets, shape.p2p, shape.p2p_level, model.hidden_size, model.num_layers,
                       model.num_heads, model.num_kv_heads, model.num_experts, model.dtype, tp, fmt::join(group, ","), work.size(),
                       decode ? fmt::format("decode at context {}", work[0].context) : fmt::format("prefill of {}", work[0].new_tokens));
  }
};

StepCase random_step_case(std::uint64_t seed, int min_tp = 1) {
  Rng r(seed);
  StepCase c;
  c.seed = seed;
  std::vector<int> tps;
  do {
    c.model = random_model(r);
    c.shape = random_shape(r, std::max(2, min_tp));
    tps = valid_tps(c.model, c.shape.gpus);
    tps.erase(std::remove_if(tps.begin(), tps.end(), [&](int t) { return t < min_tp; }), tps.end());
  } while (tps.empty());
  BoxBuilder box(c.shape, r);
  c.platform = box.platform();
  c.tp = pick(r, tps);
  c.group = random_group(r, c.shape.gpus, c.tp);
  c.decode = coin(r);
  if (c.decode) {
    const long context = long(log_uniform(r, 1, 32768));
    c.work.assign(std::size_t(uniform_int(r, 1, 256)), {context, 1});
  } else {
    c.work.assign(std::size_t(uniform_int(r, 1, 4)), {0, long(log_uniform(r, 16, 8192))});
  }
  c.scenario.engine.cuda_graphs = coin(r);
  c.scenario.engine.host_overhead_s = coin(r) ? 0.0 : log_uniform(r, 1e-6, 1e-2);
  c.scenario.engine.host_overlap = coin(r);
  return c;
}

// A step's plan with the models it points into (its segments point at the collective model's plans).
struct Planned {
  Topology topo;
  CollectiveModel cm;
  StepPlan plan;
  Planned(const StepCase& c, const PlatformDesc& platform, const Scenario& s)
      : topo(platform, s.hardware, s.collectives.p2p_level), cm(topo, s.collectives, nullptr) {
    const GpuModel gpu = gpu_model(*platform.gpus[0].spec, s, nullptr, c.model.weight_bytes_per_param);
    plan = plan_step(step_ops(c.model, c.tp, c.work), gpu, cm, c.group);
  }
};

double step_time(const StepCase& c, const PlatformDesc& platform, const Scenario& s) { return Planned(c, platform, s).plan.closed_form_s(); }

bool sane(double t) { return std::isfinite(t) && t >= 0; }

void check_sane(const StepCase& c, const StepPlan& p) {
  const Breakdown& b = p.breakdown;
  INFO(c.describe());
  CHECK(sane(b.weights));
  CHECK(sane(b.compute));
  CHECK(sane(b.attention));
  CHECK(sane(b.collectives));
  CHECK(sane(b.launch));
  CHECK(sane(b.host));
  CHECK(sane(p.closed_form_s()));
  CHECK(p.closed_form_s() > 0);
  p.for_each([&](const std::vector<Segment>& segs, int times) {
    CHECK(times >= 0);
    for (const Segment& s : segs) {
      CHECK(sane(s.compute_s));
      if (s.collective) {
        CHECK(sane(s.collective->latency_s));
        CHECK(sane(s.collective->bandwidth_s));
        for (const Flow& f : s.collective->flows) CHECK(sane(f.bytes));
      }
    }
  });
}

// Links a random subset (at least one) of the box's links, each scaled by its own factor.
PlatformDesc scale_links(const PlatformDesc& p, Rng& r, double lo, double hi, bool bandwidth) {
  PlatformDesc q = p;
  const int forced = uniform_int(r, 0, int(q.links.size()) - 1);
  for (int i = 0; i < int(q.links.size()); ++i) {
    if (i != forced && coin(r)) continue;
    const double f = uniform(r, lo, hi);
    (bandwidth ? q.links[i].bandwidth_Bps : q.links[i].latency_s) *= f;
  }
  return q;
}

std::string kind_of_some_link(const PlatformDesc& p, Rng& r) { return link_kind_name(pick(r, p.links).kind); }

}  // namespace

TEST_CASE("property: more link bandwidth never makes a step slower") {
  int slower = 0, faster = 0;
  for (int i = 0; i < CASES; ++i) {
    const StepCase c = random_step_case(1000 + i, i % 2 ? 2 : 1);
    Rng r(c.seed * 7919);
    const double before = step_time(c, c.platform, c.scenario);
    // Half the cases scale links in the platform, half raise a kind through the scenario's
    // override (links.<kind>.bandwidth), set above every link of that kind.
    double after;
    if (i % 4 < 2) {
      after = step_time(c, scale_links(c.platform, r, 1.0, 10.0, true), c.scenario);
    } else {
      Scenario s = c.scenario;
      const std::string kind = kind_of_some_link(c.platform, r);
      double widest = 0;
      for (const auto& l : c.platform.links)
        if (link_kind_name(l.kind) == kind) widest = std::max(widest, l.bandwidth_Bps);
      s.hardware.links[kind].bandwidth_Bps = widest * uniform(r, 1.0, 10.0);
      after = step_time(c, c.platform, s);
    }
    INFO(c.describe());
    CHECK(after <= before * (1 + TOLERANCE));
    slower += after > before * (1 + TOLERANCE);
    faster += after < before * (1 - TOLERANCE);
  }
  MESSAGE(CASES << " cases: " << faster << " faster with more bandwidth, " << slower << " slower");
}

TEST_CASE("property: less link latency never makes a step slower") {
  int faster = 0;
  for (int i = 0; i < CASES; ++i) {
    const StepCase c = random_step_case(2000 + i, i % 2 ? 2 : 1);
    Rng r(c.seed * 7919);
    const double before = step_time(c, c.platform, c.scenario);
    double after;
    if (i % 4 < 2) {
      after = step_time(c, scale_links(c.platform, r, 0.0, 1.0, false), c.scenario);
    } else {
      Scenario s = c.scenario;
      const std::string kind = kind_of_some_link(c.platform, r);
      double shortest = INFINITY;
      for (const auto& l : c.platform.links)
        if (link_kind_name(l.kind) == kind) shortest = std::min(shortest, l.latency_s);
      s.hardware.links[kind].latency_s = shortest * uniform(r, 0.0, 1.0);
      after = step_time(c, c.platform, s);
    }
    INFO(c.describe());
    CHECK(after <= before * (1 + TOLERANCE));
    faster += after < before * (1 - TOLERANCE);
  }
  MESSAGE(CASES << " cases: " << faster << " faster with less latency");
}

TEST_CASE("property: more HBM bandwidth never makes a decode step slower") {
  int faster = 0;
  for (int i = 0; i < CASES; ++i) {
    StepCase c = random_step_case(3000 + i);
    if (!c.decode) c.work.assign(c.work.size() * 16, {c.work[0].new_tokens, 1});  // decode after that prefill
    Rng r(c.seed * 7919);
    Scenario s = c.scenario;
    s.hardware.hbm_bandwidth_Bps = c.platform.gpus[0].spec->hbm_achievable_Bps * uniform(r, 0.1, 2.0);
    const double before = step_time(c, c.platform, s);
    s.hardware.hbm_bandwidth_Bps = *s.hardware.hbm_bandwidth_Bps * uniform(r, 1.0, 4.0);
    const double after = step_time(c, c.platform, s);
    INFO(c.describe());
    CHECK(after <= before * (1 + TOLERANCE));
    faster += after < before * (1 - TOLERANCE);
  }
  MESSAGE(CASES << " cases: " << faster << " faster with more HBM bandwidth");
}

TEST_CASE("property: a TP=1 step does not depend on the links it never uses") {
  int checked = 0;
  for (int i = 0; i < CASES; ++i) {
    StepCase c = random_step_case(4000 + i);
    c.tp = 1;
    Rng r(c.seed * 7919);
    c.group = random_group(r, c.shape.gpus, 1);
    const double before = step_time(c, c.platform, c.scenario);
    // Every link changes: bandwidth x 0.01..100, latency x 0..100; P2P level and overrides too.
    PlatformDesc other = c.platform;
    for (auto& l : other.links) l.bandwidth_Bps *= log_uniform(r, 0.01, 100), l.latency_s *= uniform(r, 0, 100);
    other.p2p_level = pick(r, std::vector<std::string>{"NVL", "PIX", "SYS"});
    Scenario s = c.scenario;
    s.hardware.links[kind_of_some_link(c.platform, r)] = {log_uniform(r, 1e6, 1e12), uniform(r, 0, 1e-3)};
    s.collectives.fixed_latency_s = uniform(r, 0, 1e-3);
    const double after = step_time(c, other, s);
    INFO(c.describe());
    CHECK(after == before);
    ++checked;
  }
  MESSAGE(checked << " TP=1 cases: identical on re-linked boxes");
}

TEST_CASE("property: step times and their parts are finite and non-negative") {
  for (int i = 0; i < CASES; ++i) {
    StepCase c = random_step_case(5000 + i);
    Rng r(c.seed * 7919);
    // Push toward the edges: links from 1 MB/s to 10 TB/s, zero latencies, long contexts.
    for (auto& l : c.platform.links) l.bandwidth_Bps = log_uniform(r, 1e6, 1e13), l.latency_s = coin(r) ? 0.0 : l.latency_s;
    if (coin(r)) c.work.assign(c.work.size(), {long(log_uniform(r, 1, 1e6)), c.work[0].new_tokens});
    if (coin(r)) c.scenario.collectives.fixed_latency_s = coin(r) ? 0.0 : log_uniform(r, 1e-7, 1e-3);
    const Planned p(c, c.platform, c.scenario);
    check_sane(c, p.plan);
  }
}

TEST_CASE("property: bus bandwidth never exceeds the bottleneck link times the protocol's payload fraction") {
  constexpr double PAYLOAD[3] = {0.5, 120.0 / 128.0, 1.0};  // LL, LL128, Simple
  int at_bound = 0, staged = 0;
  for (int i = 0; i < CASES; ++i) {
    Rng r(6000 + i);
    const BoxShape shape = random_shape(r);
    BoxBuilder box(shape, r);
    Topology topo(box.platform(), {}, "");
    CollectiveSpec spec;
    if (coin(r, 0.25)) spec.protocol = pick(r, std::vector<std::string>{"LL", "LL128", "Simple"});
    CollectiveModel cm(topo, spec, nullptr);
    const std::vector<int> group = random_group(r, shape.gpus, uniform_int(r, 2, shape.gpus));
    const CollectiveOp op = pick(r, std::vector<CollectiveOp>{CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter});
    const double size = log_uniform(r, 1, 4e9);
    const CollectivePlan& p = cm.plan(op, size, group);
    const std::vector<int>& ring = cm.ring_order(group);
    double bottleneck = INFINITY;
    for (std::size_t k = 0; k < ring.size(); ++k) bottleneck = std::min(bottleneck, topo.path(ring[k], ring[(k + 1) % ring.size()]).bottleneck_Bps);
    INFO(fmt::format("seed {}: {} GPUs, group [{}], {} of {:.0f} B: {} {}, busbw {:.4g} B/s, bottleneck {:.4g} B/s", 6000 + i, shape.gpus,
                     fmt::join(group, ","), collective_op_name(op), size, algorithm_name(p.algorithm), protocol_name(p.protocol),
                     p.busbw_Bps(), bottleneck));
    CHECK_FALSE(p.calibrated);
    CHECK(sane(p.time_s()));
    CHECK(p.busbw_Bps() <= bottleneck * PAYLOAD[int(p.protocol)] * (1 + TOLERANCE));
    at_bound += p.busbw_Bps() > 0.9 * bottleneck * PAYLOAD[int(p.protocol)];
    staged += p.staged;
  }
  MESSAGE(CASES << " collectives (" << staged << " staged through host memory): " << at_bound << " within 10% of the bound");
}
