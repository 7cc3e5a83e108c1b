// Collectives as NCCL runs them. For a group of GPUs, an op and a size S (bytes, as nccl-tests
// counts it) the model picks an algorithm (direct for 2 ranks, ring within a node, tree across
// nodes) and the protocol (LL, LL128, Simple) with the least predicted time, like NCCL's tuner
// (or, when a calibration measured NCCL's choice by size as pieces, the algorithm and protocol
// of the piece that holds S):
//   time = latency(alg, proto, path class, steps) + S · bus_factor / bus_bandwidth(proto, path)
// bus_factor = 2(N−1)/N for all-reduce, (N−1)/N for all-gather, reduce-scatter and all-to-all,
// 1 for send/recv (nccl-tests' bus bandwidth definition, so busbw = algbw · bus_factor).
// An all-to-all of S bytes (each rank's send buffer, S/N to every rank) runs as N(N−1) flows,
// one per ordered pair along its route, all at once: the slowest path and the links the pairs
// share (a GPU's NVLink port, a socket link, a NIC) set its time.
// The bandwidth part is also expressed as flows along the platform's routes (one per ring edge,
// two legs when staged through host memory) so the engine can run them on SimGrid and groups
// that share a link slow each other down. A calibration (fitted nccl-tests curves) replaces the
// default latencies and bandwidths per path class.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "config/calibration.hpp"
#include "calibration_use.hpp"
#include "collective_defaults.hpp"
#include "flow_solver.hpp"
#include "config/scenario.hpp"
#include "topology.hpp"
#include "workloads/step_ops.hpp"

namespace tpsim {


struct Flow {
  Leg leg;
  double bytes = 0;  // scaled so that, alone, the flow takes bus_bytes / bus_bw
};

struct CollectivePlan {
  CollectiveOp op = CollectiveOp::all_reduce;
  int nranks = 1;
  double size_B = 0;
  Algorithm algorithm = Algorithm::ring;
  Protocol protocol = Protocol::Simple;
  PathClass worst_class = PathClass::NVL;
  bool staged = false;        // some edge goes through host memory
  bool staged_across_sockets = false;  // the staged edge that sets the pace crosses sockets (UPI/xGMI)
  bool calibrated = false;    // numbers from a calibration file
  double latency_s = 0;       // fixed part: base + steps · hop latency (or the scenario's fixed latency)
  double bus_bytes = 0;       // S · bus_factor, bytes each rank moves
  double bus_bw_Bps = 0;      // protocol's bus bandwidth on this path, uncontended
  double tree_correction = 1; // NCCL's medium-size tree factor included in bus_bw_Bps (1: none)
  double tree_fill_s = 0;     // of latency_s: a Simple tree's chunks stored and forwarded hop by hop (tree_fill_s())
  double ll_sync_s = 0;       // of latency_s: LL's step synchronisation beyond its data time (ll_sync_s())
  double nvls_pipeline_s = 0; // of latency_s: NVLS's chunk pipeline (nvls_pipeline_s(); NVLS-tree's: nvls_tree_pipeline_s())
  std::vector<Flow> flows;    // the bandwidth part as flows
  double bandwidth_s = 0;     // bandwidth part when the group is alone (max-min over its own flows)
  std::string engine_kernel;  // "" = NCCL; "one-shot" / "two-shot": the engine's own (engine_all_reduce.hpp)
  double straggler_s = 0;     // of latency_s: waiting for the last rank to arrive (engine_all_reduce.hpp)
  double time_s() const { return latency_s + bandwidth_s; }
  double algbw_Bps() const { return time_s() > 0 ? size_B / time_s() : 0; }
  double busbw_Bps() const { return algbw_Bps() * bus_factor(op, nranks); }
};

class CollectiveModel {
public:
  CollectiveModel(const Topology& topology, CollectiveSpec spec, const Calibration* calibration);

  // Memoized per (op, size, group, graph). `in_graph`: the collective runs inside a captured CUDA graph
  // (a decode step's), whose kernels the GPUs run back to back without the host: its ranks arrive
  // together, so it does not wait for the last rank's host (the step pays that once: step_straggler_s).
  const CollectivePlan& plan(CollectiveOp op, double size_B, const std::vector<int>& gpus, bool in_graph = false) const;
  // What a step captured in a CUDA graph waits once for its ranks' graph launches: the engine's arrival
  // spread x the expected maximum of n normals (engine_all_reduce.hpp); 0 for one GPU or no spread.
  double step_straggler_s(int n) const;
  // Ring order of a group: the cyclic order that crosses the slowest paths least
  // (exact search up to 9 GPUs, the given order beyond).
  const std::vector<int>& ring_order(const std::vector<int>& gpus) const;
  // The rings a group's collectives use: one per NIC rail across nodes, else one (ring_order).
  const std::vector<std::vector<int>>& rings(const std::vector<int>& gpus) const;
  // Links (normalised, direction-aware) a group's collectives of kind `op` use.
  std::vector<DirectedLink> links_used(const std::vector<int>& gpus, CollectiveOp op = CollectiveOp::all_reduce) const;
  // The routes a collective's bytes follow: rings(gpus), or for an all-to-all the group itself
  // (every pair an edge).
  const std::vector<std::vector<int>>& routes(CollectiveOp op, const std::vector<int>& gpus) const;
  const Topology& topology() const { return topology_; }
  // Resource index of a directed link for the flow solver and the engine's sharing checks.
  int resource_of(const DirectedLink& l) const;
  // `bytes` along one leg, as the max-min solver takes it: the leg's link directions.
  SolverFlow leg_flow(const Leg& leg, double bytes) const;
  std::vector<double> resource_capacities() const;
  // The group's rings as the tuner sees them (path class, wire rate, NVLS, nodes, GPU).
  // Memoized per (op, group): it does not depend on the size.
  const GroupSummary& summary(CollectiveOp op, const std::vector<int>& gpus) const;
  // The default model's bus bandwidth of (algorithm, protocol) on the group, uncontended and without
  // NCCL's medium-size tree factor: what a fitted line's model_fraction is measured against.
  double default_bus_Bps(Protocol p, Algorithm a, CollectiveOp op, const std::vector<int>& gpus) const;
  // What a group should know that the scenario does not say: what the given NCCL release lacks;
  // across nodes, over AWS EFA with the protocol left to NCCL, aws-ofi-nccl's NCCL_PROTO=simple, and
  // without a calibration of as many nodes, how far the defaults have been checked there.
  std::vector<std::string> group_notes(CollectiveOp op, const std::vector<int>& gpus) const;
  // What the calibration did for the plans built so far, one line each, sorted: "applied: ...",
  // "extrapolated: ..." (and how), "default: ..." (why). Empty without a calibration.
  std::vector<std::string> calibration_notes() const;
  // What the engine's all-reduce did: its own kernel or NCCL (and why), the slowest-rank wait.
  std::vector<std::string> engine_notes() const { return {engine_notes_.begin(), engine_notes_.end()}; }

private:
  // The host-staged copy rates: the scenario's, else the defaults (a calibration's apply per entry).
  StagingRates staging_rates() const;
  // A line's latency and bus bandwidth at size_B; `sharing` is how much the group's own flows slow
  // its links (self_sharing), which a default line pays and a measured one already includes.
  LineCosts costs(Protocol p, Algorithm a, CollectiveOp op, const GroupSummary& g, double size_B, double sharing) const;
  void note(const std::string& status, const std::string& text) const;
  // The calibration entry that describes (op, nranks, path class key) best, among those that
  // have protocol `p` (or among all when `p` is nullopt); nullptr when none applies.
  const CollectiveCalibration* calibration_entry(CollectiveOp op, int nranks, const std::string& key,
                                                 std::optional<Protocol> p) const;
  // The piece that holds `size_B`, and its entry, when the scenario leaves algorithm and
  // protocol to NCCL and the calibration entry for the group has pieces; nullopt otherwise.
  struct CalibratedPiece {
    const CollectiveCalibration* entry;
    const CollectivePiece* piece;
  };
  std::optional<CalibratedPiece> calibrated_piece(CollectiveOp op, const GroupSummary& g, double size_B) const;
  Algorithm choose_algorithm(CollectiveOp op, int nranks, bool tree_possible) const;
  // Sets the plan's algorithm, protocol, latency and bus bandwidth from a calibrated piece.
  void apply_piece(CollectivePlan& plan, const CalibratedPiece& cp) const;
  // Sets the plan's protocol, latency and bus bandwidth: the fastest protocol allowed.
  std::vector<Algorithm> candidate_algorithms(const CollectivePlan& plan, const GroupSummary& g) const;
  double self_sharing(const CollectivePlan& plan, const std::vector<std::vector<int>>& rings, double raw_Bps) const;
  void choose_protocol(CollectivePlan& plan, const std::vector<Algorithm>& algorithms, const GroupSummary& g, double sharing) const;
  // The bandwidth part as flows along the ring, and its time when the group is alone.
  void add_flows(CollectivePlan& plan, const std::vector<std::vector<int>>& rings, const GroupSummary& g) const;
  void tree_rates(CollectiveOp op, const std::vector<std::vector<int>>& rings, GroupSummary& g) const;
  void withhold_unreleased(bool& offered, const char* what, std::array<int, 2> release, GroupSummary& g) const;
  std::vector<std::pair<int, int>> edges(CollectiveOp op, const std::vector<int>& ring) const;
  CollectivePlan build(CollectiveOp op, double size_B, const std::vector<int>& gpus) const;
  GroupSummary build_summary(CollectiveOp op, const std::vector<int>& gpus) const;  // summary(), uncached
  // build(), or the engine's own all-reduce kernel, plus the slowest-rank wait.
  CollectivePlan engine_plan(CollectiveOp op, double size_B, const std::vector<int>& gpus, bool in_graph) const;

  const Topology& topology_;
  CollectiveSpec spec_;
  const Calibration* calibration_;
  mutable std::map<std::tuple<int, double, std::vector<int>, bool>, CollectivePlan> plans_;
  mutable std::map<std::pair<int, std::vector<int>>, GroupSummary> summaries_;
  mutable std::map<std::vector<int>, std::vector<int>> rings_;
  mutable std::map<std::vector<int>, std::vector<std::vector<int>>> channel_rings_;
  mutable std::map<std::vector<int>, std::vector<std::vector<int>>> all_pairs_;
  mutable std::set<std::string> notes_;
  mutable std::set<std::string> engine_notes_;
};

}  // namespace tpsim
