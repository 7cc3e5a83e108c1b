#include "collective_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "flow_solver.hpp"
#include "util/error.hpp"

namespace tpsim {

int latency_steps(Algorithm a, CollectiveOp op, int n) {
  if (op == CollectiveOp::send_recv) return 1;
  if (a == Algorithm::nvls) return op == CollectiveOp::all_reduce ? 2 : 1;  // into the switch, and back
  if (a == Algorithm::tree) return 2 * int(std::ceil(std::log2(double(n))));
  return op == CollectiveOp::all_reduce ? 2 * (n - 1) : n - 1;
}

namespace {

constexpr double US = 1e-6;
// NCCL's base latency per protocol (LL, LL128, Simple), src/graph/tuning.cc.
constexpr double BASE_LAT[3] = {6.8 * US, 14.0 * US, 8.4 * US};
// Per-step latency by path (LL, LL128, Simple). NVL and PCIe P2P follow NCCL's hwLat; the
// host-staged (SHM) and SYS rows are raised to the floors measured in real nccl-tests logs
// (2x RTX 2080 Ti, P2P not supported: ~11.8 us at 2 ranks = 6.8 + 2 x 2.5 us).
constexpr double HOP_LAT_NVL[3] = {0.6 * US, 1.25 * US, 3.4 * US};
constexpr double HOP_LAT_PCIE[3] = {1.0 * US, 1.9 * US, 5.7 * US};
constexpr double HOP_LAT_SHM[3] = {2.5 * US, 2.5 * US, 8.0 * US};
constexpr double HOP_LAT_SYS[3] = {3.0 * US, 3.0 * US, 9.0 * US};
constexpr double HOP_LAT_NET[3] = {5.0 * US, 8.0 * US, 14.0 * US};
// Payload fraction of each protocol: LL sends 4 B of flags per 4 B of data, LL128 120 of 128 B.
constexpr double PROTO_EFF[3] = {0.5, 120.0 / 128.0, 1.0};
// NVLink SHARP (NVLS, NVSwitch multicast, Simple only): each GPU sends its data into the switch
// once and reads the reduced result once, at ~62% of its port (H100: 274 GB/s algbw on 450 GB/s
// ports, 480 GB/s busbw in the recorded DGX H100 log); NCCL's NVLS base latency is higher.
constexpr double NVLS_EFF = 0.62;
// NVLS streams only once its pipeline is full: the recorded DGX H100 log's NVLS sizes (16 MiB and
// up) fit 67 us + bus bytes / 468 GB/s; NCCL's own base latency (18-25 us) leaves 16-128 MiB
// 25-35% too fast.
constexpr double NVLS_BASE_LAT = 55.0 * US;
// NCCL counts 20 GB/s per 25 GB/s NVLink (SM80; 20.6 on SM90) when it sizes its rings, and
// that is what rings reach: 235 GB/s busbw on DGX A100 (300 GB/s ports) and 355 GB/s on an
// H100 all_gather ring (450 GB/s ports), both in calibrate/recorded. Platforms declare wire rates.
constexpr double NVLINK_EFF = 0.8;

// NCCL caps the LL protocol's bus bandwidth on one node by GPU generation (tuning.cc llMaxBws:
// Volta 39, Ampere 87.7, Hopper and later 141 GB/s); the DGX H100 log's LL sizes (1-2 MiB) grow
// at ~124-141 GB/s. Across nodes LL is left to half the NIC rate.
double ll_max_bus_Bps(int compute_capability) {
  return compute_capability >= 90 ? 141e9 : compute_capability >= 80 ? 87.7e9 : 39e9;
}

// Host-staged copies (NCCL's SHM transport) are synchronised through host memory: they run at
// most at a third of the lane, whatever the links leave free (2x RTX 2080 Ti, Gen3 x16
// ~12 GB/s, measured 4.0 GB/s busbw). It is a pace, not a share of the links: the flows carry
// the protocol's bytes and take at least bus bytes / (lane x protocol x STAGED_EFF).
constexpr double STAGED_EFF = 1.0 / 3.0;

const double* hop_latency(PathClass c, bool staged) {
  if (c == PathClass::NET) return HOP_LAT_NET;
  if (staged) return c == PathClass::SYS ? HOP_LAT_SYS : HOP_LAT_SHM;
  return c == PathClass::NVL ? HOP_LAT_NVL : HOP_LAT_PCIE;
}

std::string class_key(PathClass c, bool staged) {
  if (staged && c != PathClass::NET) return c == PathClass::SYS ? "SYS" : "SHM";
  return path_class_name(c);
}

// A latency fitted at fit_n ranks, moved to n ranks: the same base, this group's latency steps
// in place of the fitted group's, each one hop of the path,
//   L(n) = max(0, L_fit + (steps(a, n) - steps(a, fit_n)) * hop).
double extrapolated_latency(double fit_latency_s, Algorithm a, CollectiveOp op, int n, int fit_n, double hop_s) {
  return std::max(0.0, fit_latency_s + (latency_steps(a, op, n) - latency_steps(a, op, fit_n)) * hop_s);
}

}  // namespace

CollectiveModel::CollectiveModel(const Topology& topology, CollectiveSpec spec, const Calibration* calibration)
    : topology_(topology), spec_(std::move(spec)), calibration_(calibration) {}

int CollectiveModel::resource_of(const DirectedLink& l) const {
  DirectedLink n = topology_.normalise(l);
  return n.link * 2 + (n.reverse ? 1 : 0);
}

std::vector<double> CollectiveModel::resource_capacities() const {
  std::vector<double> cap;
  for (const auto& l : topology_.platform().links) {
    cap.push_back(l.bandwidth_Bps);
    cap.push_back(l.bandwidth_Bps);
  }
  return cap;
}

CollectiveModel::Costs CollectiveModel::costs(Protocol p, Algorithm a, CollectiveOp op, int n, PathClass cls,
                                              bool staged, double raw_Bps, double wire_latency_s, double ll_cap_Bps) const {
  const int pi = static_cast<int>(p);
  const double hop = hop_latency(cls, staged)[pi];
  const int steps = latency_steps(a, op, n);
  // The per-class hop latencies include the wires of a typical box; a scenario that changes a
  // link's latency (links.<kind>.latency) adds the difference to every step.
  const double link_Bps = raw_Bps * (cls == PathClass::NVL && !staged ? NVLINK_EFF : 1.0);
  Costs c{BASE_LAT[pi] + steps * (hop + wire_latency_s), link_Bps * PROTO_EFF[pi] * (staged ? STAGED_EFF : 1.0), false};
  if (p == Protocol::LL && cls != PathClass::NET) c.bus_bw_Bps = std::min(c.bus_bw_Bps, ll_cap_Bps);
  // NVLS moves S per rank where a ring moves S x bus_factor: the same time is a higher bus bandwidth.
  if (a == Algorithm::nvls) c = {NVLS_BASE_LAT + steps * (hop + wire_latency_s), raw_Bps * NVLS_EFF * bus_factor(op, n), false};
  if (const CollectiveCalibration* best = calibration_entry(op, n, class_key(cls, staged), p)) {
    const ProtocolFit& f = *best->protocols[pi];
    c = {extrapolated_latency(f.latency_s, a, op, n, best->nranks, hop), f.bus_bw_Bps, true};
  }
  if (spec_.fixed_latency_s) c.latency_s = *spec_.fixed_latency_s;
  return c;
}

// Score: same path class (or an entry that names none) first, then same op, then same rank
// count; the first entry in the file on a tie.
const CollectiveCalibration* CollectiveModel::calibration_entry(CollectiveOp op, int n, const std::string& key,
                                                                std::optional<Protocol> p) const {
  if (!calibration_) return nullptr;
  const CollectiveCalibration* best = nullptr;
  int best_score = -1;
  for (const auto& e : calibration_->collectives) {
    if ((p && !e.protocols[static_cast<int>(*p)]) || !(e.path_class.empty() || e.path_class == key)) continue;
    const int score = (e.path_class == key) * 4 + (e.op == collective_op_name(op)) * 2 + (e.nranks == n);
    if (score > best_score) best = &e, best_score = score;
  }
  return best;
}

// NCCL's tuner picks an (algorithm, protocol) pair by size; a measured curve that jumps at a
// switch shows it, and the fit then records pieces of sizes. They come from the entry that
// describes the group best, and decide only what the scenario leaves to NCCL.
std::optional<CollectiveModel::CalibratedPiece> CollectiveModel::calibrated_piece(CollectiveOp op, int n,
                                                                                  const std::string& key,
                                                                                  double size_B) const {
  if (spec_.protocol != "auto" || spec_.algorithm != "auto") return std::nullopt;
  const CollectiveCalibration* e = calibration_entry(op, n, key, std::nullopt);
  const CollectivePiece* p = e ? e->piece_at(size_B) : nullptr;
  if (!p) return std::nullopt;
  return CalibratedPiece{e, p};
}

namespace {

// How many GPUs of the communicator share `gpu`'s node: NCCL's default P2P level depends on it
// on AMD hosts (config/p2p_policy.hpp).
int local_gpus(const Topology& t, const std::vector<int>& group, int gpu) {
  const int node = t.platform().gpu(gpu)->node;
  return int(std::count_if(group.begin(), group.end(), [&](int g) { return t.platform().gpu(g)->node == node; }));
}

}  // namespace

const std::vector<int>& CollectiveModel::ring_order(const std::vector<int>& gpus) const {
  auto it = rings_.find(gpus);
  if (it != rings_.end()) return it->second;
  auto edge_cost = [&](int a, int b) {
    const GpuPath& p = topology_.path(a, b, local_gpus(topology_, gpus, a));
    return 1.0 / (p.bottleneck_Bps * (p.staged ? STAGED_EFF : 1.0)) + p.latency_s * 1e-6;
  };
  auto ring_cost = [&](const std::vector<int>& r) {
    double c = 0;
    for (std::size_t i = 0; i < r.size(); ++i) c += edge_cost(r[i], r[(i + 1) % r.size()]);
    return c;
  };
  std::vector<int> best = gpus;
  if (gpus.size() > 2 && gpus.size() <= 9) {
    std::vector<int> r = gpus;
    std::sort(r.begin() + 1, r.end());
    double best_cost = std::numeric_limits<double>::infinity();
    do {
      double c = ring_cost(r);
      if (c < best_cost * (1 - 1e-12)) best_cost = c, best = r;
    } while (std::next_permutation(r.begin() + 1, r.end()));
  }
  return rings_.emplace(gpus, best).first->second;
}

// NCCL's channels across nodes: with k GPUs (and NICs) per node, k rings, ring r entering each
// node at its GPU r and leaving by GPU r - 1, so every NIC carries one ring out and one in and
// the rings split the bytes. Within a node (or uneven nodes), one ring in the best order.
const std::vector<std::vector<int>>& CollectiveModel::rings(const std::vector<int>& gpus) const {
  auto it = channel_rings_.find(gpus);
  if (it != channel_rings_.end()) return it->second;
  std::map<int, std::vector<int>> by_node;
  for (int g : gpus) by_node[topology_.platform().gpu(g)->node].push_back(g);
  const std::size_t k = by_node.begin()->second.size();
  bool even = by_node.size() > 1 && k > 1;
  for (const auto& [node, members] : by_node) even = even && members.size() == k;
  std::vector<std::vector<int>> out;
  if (!even) {
    out.push_back(ring_order(gpus));
  } else {
    for (std::size_t r = 0; r < k; ++r) {
      std::vector<int> ring;
      for (const auto& [node, members] : by_node)
        for (std::size_t t = 0; t < k; ++t) ring.push_back(members[(r + t) % k]);
      out.push_back(ring);
    }
  }
  return channel_rings_.emplace(gpus, out).first->second;
}

// Edges a collective's bytes cross: every ring edge; a send/recv only from the first GPU to the second.
std::vector<std::pair<int, int>> CollectiveModel::edges(CollectiveOp op, const std::vector<int>& ring) const {
  std::vector<std::pair<int, int>> e;
  const std::size_t n = op == CollectiveOp::send_recv ? 1 : ring.size();
  for (std::size_t i = 0; i < n; ++i) e.emplace_back(ring[i], ring[(i + 1) % ring.size()]);
  return e;
}

std::vector<DirectedLink> CollectiveModel::links_used(const std::vector<int>& gpus) const {
  std::set<DirectedLink> used;
  if (gpus.size() < 2) return {};
  for (const auto& ring : rings(gpus))
    for (const auto& [a, b] : edges(CollectiveOp::all_reduce, ring))
      for (const auto& leg : topology_.path(a, b, local_gpus(topology_, ring, a)).legs)
        for (const auto& l : leg.links) used.insert(topology_.normalise(l));
  return {used.begin(), used.end()};
}

// Direct for 2 ranks, tree for an all-reduce across nodes, ring otherwise, unless the
// scenario forces one that applies.
Algorithm CollectiveModel::choose_algorithm(CollectiveOp op, int n, std::size_t nodes) const {
  Algorithm alg = n == 2 ? Algorithm::direct : (nodes > 1 && op == CollectiveOp::all_reduce ? Algorithm::tree : Algorithm::ring);
  if (spec_.algorithm == "ring") alg = Algorithm::ring;
  if (spec_.algorithm == "tree" && op == CollectiveOp::all_reduce) alg = Algorithm::tree;
  if (spec_.algorithm == "direct" && n == 2) alg = Algorithm::direct;
  return alg;
}

// The piece's algorithm (direct exists for 2 ranks only: ring elsewhere, with the same steps),
// protocol and bus bandwidth; its latency moved to this group's rank count with the piece's
// algorithm and the path's hop latency for the piece's protocol.
void CollectiveModel::apply_piece(CollectivePlan& plan, const CalibratedPiece& cp) const {
  const CollectivePiece& p = *cp.piece;
  const int n = plan.nranks;
  const double hop = hop_latency(plan.worst_class, plan.staged)[static_cast<int>(p.protocol)];
  plan.algorithm = p.algorithm == Algorithm::direct && n != 2 ? Algorithm::ring : p.algorithm;
  plan.protocol = p.protocol;
  plan.latency_s =
      spec_.fixed_latency_s.value_or(extrapolated_latency(p.latency_s, p.algorithm, plan.op, n, cp.entry->nranks, hop));
  plan.bus_bw_Bps = p.bus_bw_Bps;
  plan.calibrated = true;
}

// The default algorithm, and NVLS where NCCL offers it: more than 2 Hopper-or-later ranks of one
// node whose every edge runs through NVSwitch ports (NVLink SHARP needs third-generation
// NVSwitch). A scenario's `algorithm:` narrows the choice.
std::vector<Algorithm> CollectiveModel::candidate_algorithms(const CollectivePlan& plan, bool on_nvswitch) const {
  const bool nvls = on_nvswitch && plan.nranks > 2 && plan.op != CollectiveOp::send_recv;
  if (spec_.algorithm == "nvls" && nvls) return {Algorithm::nvls};
  if (spec_.algorithm == "auto" && nvls) return {plan.algorithm, Algorithm::nvls};
  return {plan.algorithm};
}

// How much longer than bus_bytes / raw the rings take because their own flows share links (a ring
// crossing one UPI link twice: 2). The tuner ranks protocols by the time the flows will really take.
double CollectiveModel::self_sharing(const CollectivePlan& plan, const std::vector<std::vector<int>>& rings, double raw_Bps) const {
  const double per_ring = plan.bus_bytes / double(rings.size());
  std::vector<SolverFlow> flows;
  for (const auto& ring : rings)
    for (const auto& [a, b] : edges(plan.op, ring))
      for (const auto& leg : topology_.path(a, b, local_gpus(topology_, ring, a)).legs) {
        SolverFlow f{per_ring, {}};
        for (const auto& l : leg.links) f.resources.push_back(resource_of(l));
        flows.push_back(std::move(f));
      }
  const double alone = plan.bus_bytes / raw_Bps;
  return alone > 0 ? std::max(1.0, completion_time(flows, resource_capacities()) / alone) : 1.0;
}

void CollectiveModel::choose_protocol(CollectivePlan& plan, const std::vector<Algorithm>& algorithms, double raw_Bps,
                                      bool all_nvl, double sharing, double wire_latency_s, double ll_cap_Bps) const {
  double best = std::numeric_limits<double>::infinity();
  for (Algorithm a : algorithms)
    for (Protocol p : ALL_PROTOCOLS) {
      if (spec_.protocol != "auto" && spec_.protocol != protocol_name(p)) continue;
      if (a == Algorithm::nvls && p != Protocol::Simple) continue;
      Costs c = costs(p, a, plan.op, plan.nranks, plan.worst_class, plan.staged, raw_Bps, wire_latency_s, ll_cap_Bps);
      // NCCL enables LL128 on NVLink only, unless a measured curve shows it elsewhere.
      if (p == Protocol::LL128 && !all_nvl && !c.calibrated && spec_.protocol != "LL128") continue;
      // A measured bus bandwidth already includes the group's own sharing; host staging's pace
      // holds unless the shared links are slower still.
      const double pace_s = plan.bus_bytes / c.bus_bw_Bps;
      const double t = c.latency_s + (c.calibrated ? pace_s : plan.staged ? std::max(pace_s * STAGED_EFF * sharing, pace_s)
                                                                          : pace_s * sharing);
      if (t < best) {
        best = t;
        plan.algorithm = a;
        plan.protocol = p;
        plan.latency_s = c.latency_s;
        plan.bus_bw_Bps = c.bus_bw_Bps;
        plan.calibrated = c.calibrated;
      }
    }
}

// Each ring carries its share of bus_bytes over each of its edges. The protocol's efficiency
// (bus bandwidth against the rings' raw bandwidth) inflates the bytes, so that alone the group
// takes bus_bytes / bus_bw, and a link shared with other groups slows everyone on it.
void CollectiveModel::add_flows(CollectivePlan& plan, const std::vector<std::vector<int>>& rings, double raw_Bps) const {
  const bool paced = plan.staged && !plan.calibrated;  // host staging's pace is not more bytes on the links
  const double per_ring = plan.bus_bytes / double(rings.size()),
               efficiency = plan.bus_bw_Bps / raw_Bps / (paced ? STAGED_EFF : 1.0);
  std::vector<SolverFlow> solver;
  for (const auto& ring : rings)
    for (const auto& [a, b] : edges(plan.op, ring))
      for (const auto& leg : topology_.path(a, b, local_gpus(topology_, ring, a)).legs) {
        Flow f{leg, per_ring / efficiency};
        SolverFlow sf{f.bytes, {}};
        for (const auto& l : leg.links) sf.resources.push_back(resource_of(l));
        solver.push_back(sf);
        plan.flows.push_back(std::move(f));
      }
  plan.bandwidth_s = completion_time(solver, resource_capacities());
  const double pace_s = plan.bus_bytes / plan.bus_bw_Bps;
  if ((plan.calibrated || (paced && pace_s > plan.bandwidth_s)) && plan.bandwidth_s > 0) {
    // A measured bus bandwidth already includes the group's own sharing of links, and host
    // staging is slower than the links: scale the flows so that, alone, they keep that pace;
    // other groups on the same links still slow them.
    const double scale = pace_s / plan.bandwidth_s;
    for (auto& f : plan.flows) f.bytes *= scale;
    plan.bandwidth_s *= scale;
  }
}

CollectivePlan CollectiveModel::build(CollectiveOp op, double size_B, const std::vector<int>& gpus) const {
  CollectivePlan plan;
  plan.op = op;
  plan.nranks = int(gpus.size());
  plan.size_B = size_B;
  if (plan.nranks < 2) return plan;
  const auto& channel_rings = rings(gpus);
  const int n = plan.nranks;
  std::set<int> nodes;
  double raw = std::numeric_limits<double>::infinity();  // narrowest edge of a ring
  bool all_nvl = true, all_nvswitch = true;
  double wire_latency = 0;  // link latency the scenario added on the slowest edge
  int compute_capability = std::numeric_limits<int>::max();  // the group's oldest GPU decides
  for (int g : gpus) {
    const GpuDesc& gpu = *topology_.platform().gpu(g);
    nodes.insert(gpu.node);
    compute_capability = std::min(compute_capability, gpu.spec->compute_capability);
  }
  for (const auto& ring : channel_rings)
    for (const auto& [a, b] : edges(op, ring)) {
      const GpuPath& p = topology_.path(a, b, local_gpus(topology_, ring, a));
      plan.worst_class = std::max(plan.worst_class, p.path_class);
      plan.staged = plan.staged || p.staged;
      all_nvl = all_nvl && p.path_class == PathClass::NVL;
      raw = std::min(raw, p.bottleneck_Bps);
      wire_latency = std::max(wire_latency, p.latency_added_s);
      for (const auto& leg : p.legs)
        for (const auto& l : leg.links) all_nvswitch = all_nvswitch && topology_.platform().links[l.link].kind == LinkKind::nvswitch;
    }
  raw *= double(channel_rings.size());  // the rings run side by side
  plan.algorithm = choose_algorithm(op, n, nodes.size());
  plan.bus_bytes = size_B * bus_factor(op, n);
  if (const auto cp = calibrated_piece(op, n, class_key(plan.worst_class, plan.staged), size_B))
    apply_piece(plan, *cp);
  else
    choose_protocol(plan, candidate_algorithms(plan, all_nvswitch && nodes.size() == 1 && compute_capability >= 90), raw,
                    all_nvl, self_sharing(plan, channel_rings, raw), wire_latency, ll_max_bus_Bps(compute_capability));
  add_flows(plan, channel_rings, raw);
  return plan;
}

const CollectivePlan& CollectiveModel::plan(CollectiveOp op, double size_B, const std::vector<int>& gpus) const {
  auto key = std::tuple{static_cast<int>(op), size_B, gpus};
  auto it = plans_.find(key);
  if (it != plans_.end()) return it->second;
  return plans_.emplace(key, build(op, size_B, gpus)).first->second;
}

}  // namespace tpsim
