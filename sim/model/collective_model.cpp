#include "collective_model.hpp"
#include "engine_all_reduce.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "flow_solver.hpp"
#include "mesh_rings.hpp"
#include "util/error.hpp"

namespace tpsim {

namespace {

// A latency fitted at fit_n ranks, moved to n ranks: the same base, this group's latency steps
// in place of the fitted group's, each one hop of the path,
//   L(n) = max(0, L_fit + (steps(a, n) - steps(a, fit_n)) * hop).
double extrapolated_latency(double fit_latency_s, Algorithm a, CollectiveOp op, int n, int fit_n, double hop_s) {
  return std::max(0.0, fit_latency_s + (latency_steps(a, op, n) - latency_steps(a, op, fit_n)) * hop_s);
}

// The bus bandwidth a line runs at on the group's links: a measured one as it is (it includes the
// group's own sharing of links); a default one slowed by that sharing, or, host-staged, the slower
// of its copies' pace and the shared links carrying the protocol's bytes.
double effective_bus_Bps(const LineCosts& c, Protocol p, const GroupSummary& g, double sharing) {
  if (c.calibrated) return c.bus_bw_Bps;
  if (g.staged) return std::min(c.bus_bw_Bps, g.raw_Bps * payload_share(p) / sharing);
  return c.bus_bw_Bps / sharing;
}

// A tree across nodes moves its own bytes (tree_bus_bw_Bps), not its rings': Simple and LL128, whose
// pace is the links'. LL keeps NCCL's share of the tree's bandwidth (TREE_LL_NET_EFF); host-staged
// chains keep the staged pace.
bool tree_shaped(Algorithm a, Protocol p, const GroupSummary& g) {
  return a == Algorithm::tree && g.nodes > 1 && !g.staged && p != Protocol::LL && g.node_net_Bps > 0;
}

}  // namespace

CollectiveModel::CollectiveModel(const Topology& topology, CollectiveSpec spec, const Calibration* calibration)
    : topology_(topology), spec_(std::move(spec)), calibration_(calibration) {}

StagingRates CollectiveModel::staging_rates() const {
  StagingRates r = default_staging_rates();
  if (spec_.host_copy_Bps) r.host_copy_Bps = *spec_.host_copy_Bps, r.host_copy_given = true;
  if (spec_.socket_copy_Bps) r.socket_copy_Bps = *spec_.socket_copy_Bps, r.socket_copy_given = true;
  r.scale = topology_.sys_path_scale();
  return r;
}

int CollectiveModel::resource_of(const DirectedLink& l) const {
  DirectedLink n = topology_.normalise(l);
  return n.link * 2 + (n.reverse ? 1 : 0);
}

SolverFlow CollectiveModel::leg_flow(const Leg& leg, double bytes) const {
  SolverFlow f{bytes, {}};
  for (const auto& l : leg.links) f.resources.push_back(resource_of(l));
  return f;
}

std::vector<double> CollectiveModel::resource_capacities() const {
  std::vector<double> cap;
  for (const auto& l : topology_.platform().links) {
    cap.push_back(l.bandwidth_Bps);
    cap.push_back(l.bandwidth_Bps);
  }
  return cap;
}

namespace {

// The default model's line for a group at size S: NCCL's latencies with the box's wires, and the
// bus bandwidth its links allow the algorithm, with NCCL's caps and corrections.
// `launch_stagger_s`: the serial launches of one thread driving several GPUs, which LL's step
// synchronisation overlaps.
LineCosts default_costs(Protocol p, Algorithm a, CollectiveOp op, const GroupSummary& g, double size_B, std::string_view nccl_version,
                        double launch_stagger_s) {
  const int n = g.nranks;
  // The per-class hop latencies include the wires of a typical box; a scenario that changes a
  // link's latency (links.<kind>.latency) adds the difference to every step.
  LineCosts c{default_latency_s(p, a, op, g.latency_path()) + latency_steps(a, op, n) * g.wire_latency_s,
          a == Algorithm::nvls_tree ? nvls_tree_bus_bw_Bps(op, n, g.nodes, g.port_Bps, g.node_net_Bps, g.compute_capability)
          : tree_shaped(a, p, g)    ? tree_bus_bw_Bps(p, op, n, g.nodes, g.intra_class, g.chain_Bps, g.node_net_Bps)
                                    : default_bus_bw_Bps(p, a, op, n, g.worst_class, g.staged, g.staged ? g.staged_Bps : g.raw_Bps,
                                                       g.compute_capability),
          false};
  if (p == Protocol::LL && !is_nvls(a)) c.bus_bw_Bps = std::min(c.bus_bw_Bps, ll_max_bus_Bps(g.compute_capability, g.nodes, g.amd_host));
  if (tree_shaped(a, p, g) && p == Protocol::Simple) {
    c.tree_fill_s = tree_fill_s({size_B, n, g.nodes, g.nics_per_node, g.node_net_Bps, g.chain_Bps, g.intra_class,
                                 nccl_tree_chunks_shrink(nccl_version)});
    c.latency_s += c.tree_fill_s;
  }
  if (p == Protocol::LL128 && g.nodes > 1 && op == CollectiveOp::all_reduce) c.bus_bw_Bps = std::min(c.bus_bw_Bps, ll128_chain_bus_Bps(g.port_Bps));
  if (op == CollectiveOp::all_reduce && (a == Algorithm::tree || (a == Algorithm::nvls_tree && g.compute_capability >= 100 && g.x86_host))) {
    c.tree_correction = tree_correction(p, size_B);
    c.bus_bw_Bps *= c.tree_correction;
  }
  if (p == Protocol::LL) {
    c.ll_sync_s = std::max(0.0, ll_sync_s(a, op, n, g.nodes, size_B) - launch_stagger_s - size_B * bus_factor(op, n) / c.bus_bw_Bps);
    c.latency_s += c.ll_sync_s;
  }
  if (a == Algorithm::nvls) c.nvls_pipeline_s = nvls_pipeline_s({size_B, n, op, c.bus_bw_Bps, g.compute_capability, nccl_version});
  if (a == Algorithm::nvls_tree)
    c.nvls_pipeline_s = nvls_tree_pipeline_s({size_B, n, g.nodes, g.port_Bps, g.compute_capability, nccl_version, g.node_net_Bps, g.nics_per_node});
  c.latency_s += c.nvls_pipeline_s;
  return c;
}

// A network line fitted on `fitted_nodes` nodes, run on the group's: the default bus bandwidth on
// the group's nodes over that on as many of the same nodes as were fitted (beyond 2 nodes a tree
// moves 2 S per node through the NICs where it moved S, and LL's cap falls); 1 within a node or on
// as many nodes.
double nodes_scale(Protocol p, Algorithm a, CollectiveOp op, const GroupSummary& g, int fitted_nodes, int fitted_ranks) {
  if (g.worst_class != PathClass::NET || fitted_nodes < 2 || fitted_nodes == g.nodes) return 1.0;
  GroupSummary fitted = g;
  fitted.nodes = fitted_nodes, fitted.nranks = fitted_ranks;
  const double there = default_costs(p, a, op, fitted, 0, "", 0).bus_bw_Bps, here = default_costs(p, a, op, g, 0, "", 0).bus_bw_Bps;
  return there > 0 ? here / there : 1.0;
}

}  // namespace

double CollectiveModel::default_bus_Bps(Protocol p, Algorithm a, CollectiveOp op, const std::vector<int>& gpus) const {
  const LineCosts c = default_costs(p, a, op, summary(op, gpus), 0, spec_.nccl_version, 0);
  return c.bus_bw_Bps / c.tree_correction;
}

LineCosts CollectiveModel::costs(Protocol p, Algorithm a, CollectiveOp op, const GroupSummary& g, double size_B,
                                 double sharing) const {
  const int n = g.nranks;
  const double serial_launches_s = serial_launch_s(spec_.gpus_per_thread, spec_.nccl_version);
  LineCosts c = default_costs(p, a, op, g, size_B, spec_.nccl_version, serial_launches_s);
  const std::string key = class_key(g.worst_class, g.staged);
  const CollectiveCalibration* best = calibration_entry(op, n, key, p);
  // A staged fit within a socket measured the host copy: it carries to staged paths across sockets.
  const CollectiveCalibration* shm = g.staged && key == "SYS" && !best ? calibration_entry(op, n, "SHM", p) : nullptr;
  if (shm && shm->host_copy_Bps) best = shm;
  if (const auto why = best ? below_measured_sizes(*best, size_B) : std::nullopt) {
    note("default", *why);
  } else if (best) {
    const LineUse use = use_line(*best, p, a, op, g, c, nodes_scale(p, a, op, g, best->nodes, best->nranks), spec_.gpus_per_thread,
                                   spec_.algorithm != "auto");
    note(use.status, use.how);
    const double default_Bps = effective_bus_Bps(c, p, g, sharing);
    c = use.costs;
    if (const auto how = above_measured_sizes(*best, p, size_B, bus_factor(op, n), default_Bps, c)) note("extrapolated", *how);
  } else if (calibration_ && !calibration_->collectives.empty()) {
    note("default", fmt::format("{} {} on {} ranks: no calibration entry for path class {} with {}", algorithm_name(a),
                                protocol_name(p), n, key, protocol_name(p)));
  }
  c.latency_s += serial_launches_s;
  if (spec_.fixed_latency_s) c.latency_s = *spec_.fixed_latency_s;
  return c;
}

void CollectiveModel::note(const std::string& status, const std::string& text) const { notes_.emplace(status + ": " + text); }

std::vector<std::string> CollectiveModel::calibration_notes() const { return {notes_.begin(), notes_.end()}; }

// Score: same path class (or an entry that names none) first, then same op, then same rank
// count; the first entry in the file on a tie.
const CollectiveCalibration* CollectiveModel::calibration_entry(CollectiveOp op, int n, const std::string& key,
                                                                std::optional<Protocol> p) const {
  if (!calibration_) return nullptr;
  const CollectiveCalibration* best = nullptr;
  int best_score = -1;
  for (const auto& e : calibration_->collectives) {
    if ((p && !e.protocols[static_cast<int>(*p)]) || !(e.path_class.empty() || e.path_class == key)) continue;
    const int score = (e.path_class == key) * 4 + (e.op == op) * 2 + (e.nranks == n);
    if (score > best_score) best = &e, best_score = score;
  }
  return best;
}

// NCCL's tuner picks an (algorithm, protocol) pair by size; a measured curve that jumps at a
// switch shows it, and the fit then records pieces of sizes. They come from the entry that
// describes the group best, and decide only what the scenario leaves to NCCL.
std::optional<CollectiveModel::CalibratedPiece> CollectiveModel::calibrated_piece(CollectiveOp op, const GroupSummary& g,
                                                                                  double size_B) const {
  const CollectiveCalibration* e = calibration_entry(op, g.nranks, class_key(g.worst_class, g.staged), std::nullopt);
  const CollectivePiece* p = e && !below_measured_sizes(*e, size_B) ? e->piece_at(size_B) : nullptr;
  if (!p) return std::nullopt;
  // A scenario that forces a protocol or an algorithm takes pieces only from a log that ran it alone
  // (NCCL_PROTO, NCCL_ALGO, or tpsim fit --protocol, --algorithm): they record NCCL's steps within it.
  auto forced_elsewhere = [&](const CollectivePiece& q) {
    const bool algorithm = spec_.algorithm == "auto" || spec_.algorithm == algorithm_name(q.algorithm) ||
                           (spec_.algorithm == "nvls" && is_nvls(q.algorithm));
    return !algorithm || (spec_.protocol != "auto" && spec_.protocol != protocol_name(q.protocol));
  };
  if (std::any_of(e->pieces.begin(), e->pieces.end(), forced_elsewhere)) return std::nullopt;
  // Pieces of a log that ran under NCCL_ALGO or NCCL_PROTO are NCCL's steps within what it forced: a run
  // that leaves the choice to NCCL makes its own (a ring-forced 8x H100 sweep's ring pieces on a node
  // that runs NVLS from 128 MiB: 4.6% -> 25.4%), and the lines apply.
  // (Over EFA before Hopper the run takes Simple as the log did: aws-ofi-nccl forces it on both.)
  const bool efa_simple = efa_forces_simple(g.transport, g.nodes, g.compute_capability);
  const bool algorithm_free = e->forced_algorithm && spec_.algorithm == "auto";
  const bool protocol_free = e->forced_protocol && spec_.protocol == "auto" && !(*e->forced_protocol == Protocol::Simple && efa_simple);
  if (algorithm_free || protocol_free) {
    note("extrapolated", fmt::format("size pieces of {} not used: the log ran under NCCL_{}={}, which this run leaves to NCCL; its lines apply",
                                     e->source, algorithm_free ? "ALGO" : "PROTO",
                                     algorithm_free ? algorithm_name(*e->forced_algorithm) : protocol_name(*e->forced_protocol)));
    return std::nullopt;
  }
  if (e->max_size_B > 0 && size_B > e->max_size_B) {
    note("extrapolated", fmt::format("size pieces of {} not used above {:.0f} B, the largest size it measured: its lines apply there",
                                     e->source, e->max_size_B));
    return std::nullopt;
  }
  if (!within_envelope(*e, g) || e->op != op) {
    note("extrapolated", fmt::format("size pieces of {} not carried to {} ranks of {} on {} node(s){}: they record NCCL's choices on "
                                     "the box it measured; the envelope's lines apply instead",
                                     e->source, g.nranks, g.gpu_model, g.nodes,
                                     g.nvlink_fabric.empty() ? "" : fmt::format(" (NVLink {})", g.nvlink_fabric)));
    return std::nullopt;
  }
  note("applied", fmt::format("size pieces of {} (NCCL's choices by size on the box it measured)", e->source));
  return CalibratedPiece{e, p};
}

const std::vector<int>& CollectiveModel::ring_order(const std::vector<int>& gpus) const {
  auto it = rings_.find(gpus);
  if (it != rings_.end()) return it->second;
  auto edge_cost = [&](int a, int b) {
    const GpuPath& p = topology_.path_in(gpus, a, b);
    const double rate = p.staged ? staged_rate_Bps(staged_edge(topology_.platform(), p), staging_rates()) : p.bottleneck_Bps;
    return 1.0 / rate + p.latency_s * 1e-6;
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

namespace {

// The direct NVLink bundle from a to b (bytes/s per direction), 0 when their path is anything else.
double direct_nvlink_Bps(const Topology& t, const GpuPath& p) {
  if (p.staged || p.legs.size() != 1 || p.legs[0].links.size() != 1) return 0;
  const auto& link = t.platform().links[p.legs[0].links[0].link];
  return link.kind == LinkKind::nvlink ? link.bandwidth_Bps : 0;
}

// Within one node, NCCL's search over a direct NVLink mesh (mesh_rings.hpp), when its rings
// together carry more than the best single ring's narrowest edge.
MeshRingSet node_rings(const Topology& topology, const std::vector<int>& gpus, const std::vector<int>& one) {
  double one_Bps = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < one.size(); ++i)
    one_Bps = std::min(one_Bps, topology.path(one[i], one[(i + 1) % one.size()], int(gpus.size())).bottleneck_Bps);
  const MeshRingSet mesh = mesh_rings(gpus, [&](int a, int b) { return direct_nvlink_Bps(topology, topology.path(a, b, int(gpus.size()))); });
  if (mesh.rings.size() > 1 && mesh.total_Bps() > one_Bps * (1 + 1e-9)) return mesh;
  return {{one}, one_Bps};
}

}  // namespace

// NCCL's channels across nodes: with k GPUs (and NICs) per node, k rings, ring r entering each
// node at its GPU r and leaving by GPU r - 1, so every NIC carries one ring out and one in and
// the rings split the bytes. Within a node (or uneven nodes), node_rings.
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
    if (by_node.size() == 1) {
      const MeshRingSet set = node_rings(topology_, gpus, ring_order(gpus));
      out = set.rings;
      if (out.size() > 1)
        engine_notes_.insert(fmt::format("collectives on {} GPUs: {} rings over the direct NVLink mesh, {:.1f} GB/s of links each "
                                         "(NCCL's ring search, search.cc), not one ring",
                                         gpus.size(), out.size(), set.per_ring_Bps / 1e9));
    } else {
      out.push_back(ring_order(gpus));
    }
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

// Edges a collective's bytes cross: every ring edge; a send/recv only from the first GPU to the
// second; an all-to-all from every GPU to every other one.
std::vector<std::pair<int, int>> CollectiveModel::edges(CollectiveOp op, const std::vector<int>& ring) const {
  std::vector<std::pair<int, int>> e;
  if (op == CollectiveOp::all_to_all) {
    for (int a : ring)
      for (int b : ring)
        if (a != b) e.emplace_back(a, b);
    return e;
  }
  const std::size_t n = op == CollectiveOp::send_recv ? 1 : ring.size();
  for (std::size_t i = 0; i < n; ++i) e.emplace_back(ring[i], ring[(i + 1) % ring.size()]);
  return e;
}

// An all-to-all's peers all send at once: one route through the group, every pair an edge.
const std::vector<std::vector<int>>& CollectiveModel::routes(CollectiveOp op, const std::vector<int>& gpus) const {
  if (op != CollectiveOp::all_to_all) return rings(gpus);
  auto it = all_pairs_.find(gpus);
  if (it == all_pairs_.end()) it = all_pairs_.emplace(gpus, std::vector<std::vector<int>>{gpus}).first;
  return it->second;
}

std::vector<DirectedLink> CollectiveModel::links_used(const std::vector<int>& gpus, CollectiveOp op) const {
  std::set<DirectedLink> used;
  if (gpus.size() < 2) return {};
  for (const auto& ring : routes(op, gpus))
    for (const auto& [a, b] : edges(op, ring))
      for (const auto& leg : topology_.path_in(ring, a, b).legs)
        for (const auto& l : leg.links) used.insert(topology_.normalise(l));
  return {used.begin(), used.end()};
}

// Direct for 2 ranks, tree for an all-reduce across nodes (where the release has it), ring otherwise,
// unless the scenario forces one that applies.
Algorithm CollectiveModel::choose_algorithm(CollectiveOp op, int n, bool tree_possible) const {
  if (op == CollectiveOp::all_to_all) return Algorithm::direct;  // NCCL's alltoall: grouped sends to every peer
  Algorithm alg = n == 2 ? Algorithm::direct : (tree_possible ? Algorithm::tree : Algorithm::ring);
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
  const double hop = hop_latency_s(plan.worst_class, plan.staged, p.protocol, p.algorithm, is_pairwise(plan.op));
  plan.algorithm = p.algorithm == Algorithm::direct && n != 2 ? Algorithm::ring : p.algorithm;
  plan.protocol = p.protocol;
  plan.latency_s =
      spec_.fixed_latency_s.value_or(extrapolated_latency(p.latency_s - serial_launch_s(cp.entry->gpus_per_thread, cp.entry->nccl_version), p.algorithm,
                                                          plan.op, n, cp.entry->nranks, hop) +
                                     serial_launch_s(spec_.gpus_per_thread, spec_.nccl_version));
  plan.bus_bw_Bps = p.bus_bw_Bps;
  plan.calibrated = true;
}

// The default algorithm; across nodes the ring beside the tree, as NCCL's tuner weighs both (beyond
// 2 nodes a tree moves 2 S through each node's NICs, a ring 2(N-1)/N S: with one GPU a node the ring
// wins large sizes); and NVLS where NCCL offers it: more than 2 Hopper-or-later ranks of one
// node whose every edge runs through NVSwitch ports (NVLink SHARP needs third-generation
// NVSwitch); across such nodes NVLS-tree. A scenario's `algorithm:` narrows the choice (`nvls`
// names both).
std::vector<Algorithm> CollectiveModel::candidate_algorithms(const CollectivePlan& plan, const GroupSummary& g) const {
  std::vector<Algorithm> out{plan.algorithm};
  if (spec_.algorithm == "auto" && plan.algorithm == Algorithm::tree) out.push_back(Algorithm::ring);
  if (!g.nvls_possible && !g.nvls_tree_possible) return out;
  const Algorithm nvls = g.nvls_possible ? Algorithm::nvls : Algorithm::nvls_tree;
  if (spec_.algorithm == "nvls") return {nvls};
  if (spec_.algorithm == "auto") out.push_back(nvls);
  return out;
}

namespace {

// Bytes one edge of a route carries: a ring edge its ring's share of the bus bytes, an all-to-all
// pair 1/(n-1) of them (S/n to each peer).
double edge_bytes(const CollectivePlan& plan, std::size_t routes) {
  const double per_route = plan.bus_bytes / double(routes);
  return plan.op == CollectiveOp::all_to_all ? per_route / double(plan.nranks - 1) : per_route;
}

}  // namespace

// How much longer than bus_bytes / raw the rings take because their own flows share links (a ring
// crossing one UPI link twice: 2). The tuner ranks protocols by the time the flows will really take.
double CollectiveModel::self_sharing(const CollectivePlan& plan, const std::vector<std::vector<int>>& rings, double raw_Bps) const {
  const double per_ring = edge_bytes(plan, rings.size());
  std::vector<SolverFlow> flows;
  for (const auto& ring : rings)
    for (const auto& [a, b] : edges(plan.op, ring))
      for (const auto& leg : topology_.path_in(ring, a, b).legs) flows.push_back(leg_flow(leg, per_ring));
  const double alone = plan.bus_bytes / raw_Bps;
  return alone > 0 ? std::max(1.0, completion_time(flows, resource_capacities()) / alone) : 1.0;
}

void CollectiveModel::choose_protocol(CollectivePlan& plan, const std::vector<Algorithm>& algorithms, const GroupSummary& g,
                                      double sharing) const {
  double best = std::numeric_limits<double>::infinity();
  for (Algorithm a : algorithms)
    for (Protocol p : ALL_PROTOCOLS) {
      if (spec_.protocol != "auto" && spec_.protocol != protocol_name(p)) continue;
      if (is_nvls(a) && p != Protocol::Simple) continue;
      if (spec_.protocol == "auto" && p != Protocol::Simple && efa_forces_simple(g.transport, g.nodes, g.compute_capability)) continue;
      // NCCL's point-to-point sends (an all-to-all) run Simple unless the scenario says otherwise.
      if (plan.op == CollectiveOp::all_to_all && p != Protocol::Simple && spec_.protocol == "auto") continue;
      LineCosts c = costs(p, a, plan.op, g, plan.size_B, sharing);
      // NCCL enables LL128 on NVLink (and across nodes from there over RDMA NICs near the GPUs)
      // only, unless a measured curve shows it elsewhere.
      if (p == Protocol::LL128 && !g.ll128_enabled && !c.calibrated && spec_.protocol != "LL128") continue;
      // A tree's bandwidth already counts the links its own rings share (the solver's node_net_Bps, chain_Bps).
      const double t = c.latency_s + plan.bus_bytes / effective_bus_Bps(c, p, g, tree_shaped(a, p, g) ? 1.0 : sharing);
      // What NCCL's tuner ranks: from 2.28 it counts a 2-node NVLS-tree's NICs twice, as tpsim does, but
      // never its chunk pipeline's fill, so it runs NVLS-tree from sizes where the fill makes it the slower.
      const double ranked = a == Algorithm::nvls_tree && nvls_tree_ranked_without_fill(g.nodes, spec_.nccl_version) ? t - c.nvls_pipeline_s : t;
      if (ranked < best) {
        best = ranked;
        plan.algorithm = a;
        plan.protocol = p;
        plan.latency_s = c.latency_s;
        plan.bus_bw_Bps = c.bus_bw_Bps;
        plan.calibrated = c.calibrated;
        plan.tree_correction = c.calibrated ? 1.0 : c.tree_correction;
        plan.tree_fill_s = c.calibrated ? 0.0 : c.tree_fill_s;
        plan.ll_sync_s = c.calibrated ? 0.0 : c.ll_sync_s;
        plan.nvls_pipeline_s = c.calibrated ? 0.0 : c.nvls_pipeline_s;
      }
    }
  // The scenario and command line refuse the pairs NCCL has none of (algorithm_protocol_conflict); a
  // plan left unpriced would run forever, so one that slips through is an internal error, not a hang.
  if (!(best < std::numeric_limits<double>::infinity()))
    throw std::logic_error(fmt::format("no algorithm runs {} with protocol {}", collective_op_name(plan.op), spec_.protocol));
}

// Each ring carries its share of bus_bytes over each of its edges. The protocol's efficiency
// (bus bandwidth against the rings' raw bandwidth) inflates the bytes, so that alone the group
// takes bus_bytes / bus_bw, and a link shared with other groups slows everyone on it.
void CollectiveModel::add_flows(CollectivePlan& plan, const std::vector<std::vector<int>>& rings, const GroupSummary& g) const {
  const bool paced = plan.staged && !plan.calibrated;  // host staging's pace is not more bytes on the links
  const bool tree = tree_shaped(plan.algorithm, plan.protocol, g);  // the tree's bytes, then its pace
  const double per_ring = edge_bytes(plan, rings.size()),
               efficiency = paced ? payload_share(plan.protocol) : plan.bus_bw_Bps / g.raw_Bps;
  const int k = int(rings.size()), nodes = plan.nranks / k;
  std::vector<SolverFlow> solver;
  for (const auto& ring : rings)
    for (const auto& [a, b] : edges(plan.op, ring)) {
      const GpuPath& path = topology_.path_in(ring, a, b);
      const bool network = path.path_class == PathClass::NET;
      const double bytes = plan.algorithm == Algorithm::nvls_tree ? nvls_tree_edge_bytes(plan.size_B, nodes, k, network, g.compute_capability)
                           : tree                                ? tree_edge_bytes(plan.size_B, g.nodes, k, network)
                                                                 : per_ring / efficiency;
      for (const auto& leg : path.legs) {
        solver.push_back(leg_flow(leg, bytes));
        plan.flows.push_back(Flow{leg, bytes});
      }
    }
  plan.bandwidth_s = completion_time(solver, resource_capacities());
  const double pace_s = plan.bus_bytes / plan.bus_bw_Bps;
  if ((plan.calibrated || tree || (paced && pace_s > plan.bandwidth_s)) && plan.bandwidth_s > 0) {
    // A measured bus bandwidth already includes the group's own sharing of links, host staging is
    // slower than the links, and a tree's flows carry its bytes at the wire rate, not at its
    // protocol's and links' efficiency: scale the flows so that, alone, they keep that pace;
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
  const GroupSummary& g = summary(op, gpus);
  plan.worst_class = g.worst_class;
  plan.staged = g.staged;
  plan.staged_across_sockets = g.staged_edge && g.staged_edge->crosses_socket;
  plan.algorithm = choose_algorithm(op, plan.nranks, g.tree_possible);
  plan.bus_bytes = size_B * bus_factor(op, plan.nranks);
  if (const auto cp = calibrated_piece(op, g, size_B))
    apply_piece(plan, *cp);
  else
    choose_protocol(plan, candidate_algorithms(plan, g), g, self_sharing(plan, routes(op, gpus), g.raw_Bps));
  add_flows(plan, routes(op, gpus), g);
  return plan;
}

const CollectivePlan& CollectiveModel::plan(CollectiveOp op, double size_B, const std::vector<int>& gpus, bool in_graph) const {
  auto key = std::tuple{static_cast<int>(op), size_B, gpus, in_graph};
  auto it = plans_.find(key);
  if (it != plans_.end()) return it->second;
  return plans_.emplace(key, engine_plan(op, size_B, gpus, in_graph)).first->second;
}

double CollectiveModel::step_straggler_s(int n) const {
  return n >= 2 ? spec_.all_reduce_jitter_s * expected_max_of_normals(n) : 0.0;
}

CollectivePlan CollectiveModel::engine_plan(CollectiveOp op, double size_B, const std::vector<int>& gpus, bool in_graph) const {
  const int n = int(gpus.size());
  CollectivePlan plan;
  if (op == CollectiveOp::all_reduce && spec_.custom_all_reduce && n >= 2) {
    const GroupSummary& g = summary(op, gpus);
    const auto fit = custom_all_reduce_fit(*spec_.custom_all_reduce, g, size_B);
    if (fit.applies) {
      plan = custom_all_reduce_plan(*this, *spec_.custom_all_reduce, fit, g, size_B, gpus);
      engine_notes_.insert(fmt::format("all-reduce on {} GPUs: the engine's {} kernel where its limits put it", n, plan.engine_kernel));
    } else {
      plan = build(op, size_B, gpus);
      engine_notes_.insert(fmt::format("all-reduce on {} GPUs: NCCL where the engine's kernel does not run ({})", n, fit.why_not));
    }
  } else {
    plan = build(op, size_B, gpus);
  }
  if (n >= 2 && op != CollectiveOp::send_recv && spec_.all_reduce_jitter_s > 0 && !in_graph) {
    plan.straggler_s = step_straggler_s(n);
    plan.latency_s += plan.straggler_s;
    engine_notes_.insert(fmt::format("each collective on {} GPUs waits {:.1f} us for the last rank (arrival spread {:.1f} us x {:.2f})", n,
                                     plan.straggler_s * 1e6, spec_.all_reduce_jitter_s * 1e6, expected_max_of_normals(n)));
  }
  return plan;
}

}  // namespace tpsim
