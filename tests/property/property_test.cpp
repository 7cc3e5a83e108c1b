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
    return fmt::format("seed {}: {} GPUs {} ({} socket(s), NVSwitch {}, p2p {}, level {}), model d={} L={} heads={}/{} experts={} {}, TP={} group [{}], {} x {}",
                       seed, shape.gpus, shape.gpu_model, shape.sockets, shape.nvswitch, shape.p2p, shape.p2p_level, model.hidden_size, model.num_layers,
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
    const GpuModel gpu = gpu_model(*platform.gpus[0].spec, s, nullptr, c.model.compute_bytes(), c.model.kv_bytes_per_value);
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
  // Checked with the tuner's own choice (`protocol: auto`, which ranks protocols by the time the
  // group's flows really take, own link sharing included: seed 1097 once went Simple -> LL and got
  // 0.4% slower when it did not) and with the protocol fixed per case (LL, LL128 or Simple).
  int slower = 0, faster = 0, auto_slower = 0;
  for (int i = 0; i < CASES; ++i) {
    const StepCase c = random_step_case(1000 + i, i % 2 ? 2 : 1);
    Rng r(c.seed * 7919);
    // Half the cases scale links in the platform, half raise a kind through the scenario's
    // override (links.<kind>.bandwidth), set above every link of that kind.
    PlatformDesc platform = c.platform;
    Scenario wider = c.scenario;
    if (i % 4 < 2) {
      platform = scale_links(c.platform, r, 1.0, 10.0, true);
    } else {
      const std::string kind = kind_of_some_link(c.platform, r);
      double widest = 0;
      for (const auto& l : c.platform.links)
        if (link_kind_name(l.kind) == kind) widest = std::max(widest, l.bandwidth_Bps);
      wider.hardware.links[kind].bandwidth_Bps = widest * uniform(r, 1.0, 10.0);
    }
    INFO(c.describe());
    {
      const double before = step_time(c, c.platform, c.scenario), after = step_time(c, platform, wider);
      CHECK(after <= before + TOLERANCE * std::fabs(before));
      auto_slower += after > before + TOLERANCE * std::fabs(before);
    }
    Scenario fixed = c.scenario;
    fixed.collectives.protocol = pick(r, std::vector<std::string>{"LL", "LL128", "Simple"});
    Scenario fixed_wider = wider;
    fixed_wider.collectives.protocol = fixed.collectives.protocol;
    const double before = step_time(c, c.platform, fixed), after = step_time(c, platform, fixed_wider);
    INFO("protocol " << fixed.collectives.protocol);
    CHECK(after <= before + TOLERANCE * std::fabs(before));
    slower += after > before + TOLERANCE * std::fabs(before);
    faster += after < before - TOLERANCE * std::fabs(before);
  }
  MESSAGE(CASES << " cases with a fixed protocol: " << faster << " faster with more bandwidth, " << slower << " slower; with protocol auto, "
                << auto_slower << " slower (the tuner's known gap)");
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
    CHECK(after <= before + TOLERANCE * std::fabs(before));
    faster += after < before - TOLERANCE * std::fabs(before);
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
    CHECK(after <= before + TOLERANCE * std::fabs(before));
    faster += after < before - TOLERANCE * std::fabs(before);
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
  int at_bound = 0, staged = 0, nvls = 0;
  for (int i = 0; i < CASES; ++i) {
    Rng r(6000 + i);
    const BoxShape shape = random_shape(r);
    BoxBuilder box(shape, r);
    Topology topo(box.platform(), {}, "");
    CollectiveSpec spec;
    if (coin(r, 0.25)) spec.protocol = pick(r, std::vector<std::string>{"LL", "LL128", "Simple"});
    CollectiveModel cm(topo, spec, nullptr);
    // On NVSwitch boxes, often the whole box: the groups where NCCL (and tpsim) may pick NVLS.
    const int n = shape.nvswitch && coin(r) ? shape.gpus : uniform_int(r, 2, shape.gpus);
    const std::vector<int> group = random_group(r, shape.gpus, n);
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
    // NVLS reduces inside the NVSwitch: each rank moves S (not S x bus factor) through its port, so
    // its bus bandwidth may exceed the port's (480 GB/s on 450 GB/s ports in the recorded DGX H100
    // log); its bound is algbw <= port, i.e. busbw <= port x bus factor.
    const double bound = p.algorithm == Algorithm::nvls ? bottleneck * bus_factor(op, p.nranks) : bottleneck * PAYLOAD[int(p.protocol)];
    CHECK(p.busbw_Bps() <= bound * (1 + TOLERANCE));
    at_bound += p.busbw_Bps() > 0.9 * bound;
    staged += p.staged;
    nvls += p.algorithm == Algorithm::nvls;
  }
  MESSAGE(CASES << " collectives (" << staged << " staged through host memory, " << nvls << " NVLS): " << at_bound
                << " within 10% of the bound");
}

TEST_CASE("property: the protocol picked is never slower than another one NCCL would consider") {
  // Like NCCL's tuner: with protocol auto, a collective's time is the least over LL, Simple and,
  // when every ring edge is NVLink, LL128 (each forced through the scenario's `protocol`).
  // Known gap: the tuner ranks protocols by latency + bus_bytes / bus_bw, while the plan's
  // bandwidth term also counts the group's own flows sharing a link (k times the estimate, e.g.
  // k = 2 for a 2-GPU ring through one SHARED PCIe switch), so it can pick LL where Simple is
  // faster (seeds 7145 and 7246 of this loop). What holds is the tuner's guarantee:
  //   time(picked) <= k est(picked) <= k est(other) <= k time(other).
  int not_simple = 0, own_sharing = 0, misses = 0;
  for (int i = 0; i < CASES; ++i) {
    Rng r(7000 + i);
    const BoxShape shape = random_shape(r);
    BoxBuilder box(shape, r);
    Topology topo(box.platform(), {}, "");
    const std::vector<int> group = random_group(r, shape.gpus, uniform_int(r, 2, shape.gpus));
    const CollectiveOp op = pick(r, std::vector<CollectiveOp>{CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter});
    const double size = log_uniform(r, 1, 4e9);
    const CollectiveModel automatic(topo, {}, nullptr);
    const CollectivePlan& best = automatic.plan(op, size, group);
    INFO(fmt::format("seed {}: {} GPUs, group [{}], {} of {:.0f} B: {} takes {:.6g} s", 7000 + i, shape.gpus, fmt::join(group, ","),
                     collective_op_name(op), size, protocol_name(best.protocol), best.time_s()));
    const double k = std::max(1.0, best.bandwidth_s * best.bus_bw_Bps / best.bus_bytes);  // 1 unless the group's flows share a link
    own_sharing += k > 1 + 1e-9;
    bool missed = false;
    for (const char* p : {"LL", "LL128", "Simple"}) {
      if (std::string(p) == "LL128" && best.worst_class != PathClass::NVL) continue;  // NCCL runs LL128 on NVLink only
      if (std::string(p) == "LL128" && box.platform().gpu(group.front())->spec->compute_capability < 70) continue;  // and from sm_70
      CollectiveSpec forced;
      forced.protocol = p;
      const CollectiveModel other(topo, forced, nullptr);
      const double t = other.plan(op, size, group).time_s();
      INFO("forced " << std::string(p) << ": " << t << " s, k = " << k);
      CHECK(best.time_s() <= k * t * (1 + TOLERANCE));
      missed = missed || best.time_s() > t * (1 + TOLERANCE);
    }
    misses += missed;
    not_simple += best.protocol != Protocol::Simple;
  }
  MESSAGE(CASES << " collectives: " << not_simple << " picked LL or LL128, the others Simple; " << own_sharing
                << " with the group's flows sharing a link, " << misses << " of them not the fastest");
}
