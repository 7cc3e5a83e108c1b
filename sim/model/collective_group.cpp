// What a group of GPUs is to NCCL: its links, nodes and transports summed up (summary), the rates
// of a tree's parts across nodes (tree_rates), and the notes its runs carry (group_notes).
#include "collective_model.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "flow_solver.hpp"

namespace tpsim {

namespace {

// Whether a path crosses a host bridge or the socket link: its GPU and NIC meet at the CPU (PHB or
// farther), not below a PCIe switch.
bool through_cpu(const PlatformDesc& platform, const GpuPath& path) {
  for (const auto& leg : path.legs)
    for (const auto& l : leg.links)
      if (const LinkKind k = platform.links[l.link].kind; k == LinkKind::host_bridge || k == LinkKind::upi) return true;
  return false;
}

}  // namespace

// Across nodes, the rates at which the rings' network edges and their edges within a node carry a
// size split over the rings, each set alone (max-min over the links: a NIC that several rings
// share counts once, a rail NIC per ring adds up).
void CollectiveModel::tree_rates(CollectiveOp op, const std::vector<std::vector<int>>& rings, GroupSummary& g) const {
  std::vector<SolverFlow> net, chain;
  std::set<int> nics;
  for (const auto& ring : rings)
    for (const auto& [a, b] : edges(op, ring)) {
      const GpuPath& p = topology_.path_in(ring, a, b);
      for (const auto& leg : p.legs) {
        (p.path_class == PathClass::NET ? net : chain).push_back(leg_flow(leg, 1.0 / double(rings.size())));
        for (const auto& l : leg.links)
          if (topology_.platform().links[l.link].kind == LinkKind::nic) nics.insert(l.link);
      }
    }
  g.nics_per_node = int(nics.size()) / std::max(1, g.nodes);
  const std::vector<double> capacities = resource_capacities();
  const auto rate = [&](const std::vector<SolverFlow>& flows) {
    const double t = flows.empty() ? 0.0 : completion_time(flows, capacities);
    return t > 0 ? 1.0 / t : std::numeric_limits<double>::infinity();
  };
  g.node_net_Bps = rate(net);
  g.chain_Bps = rate(chain);
}

namespace {
// Within a node of NVLink GPUs, where held-out boxes ran a decode or dispatch step's sizes slower than the
// defaults, for an uncalibrated group of their kind: all-to-alls (H100, B200); small collectives, where NCCL's
// latencies hold on the fitted H100 box but not on the Ampere and Blackwell boxes held out (Ampere's only with
// one process per GPU, as engines run: its -g 8 sweeps hide it behind their launches).
std::optional<std::string> held_out_lean_note(const GroupSummary& g, CollectiveOp op, int gpus_per_thread) {
  if (g.nodes != 1 || !g.all_nvl || g.staged) return std::nullopt;  // the held-out sweeps ran P2P over NVLink
  if (op == CollectiveOp::all_to_all)
    return "all-to-all within a node: two held-out alltoall_perf sweeps (8x H100, 8x B200; tests/data/measured/SOURCES.md) "
           "ran their 1-64 MiB (the H100's from 32 MiB) 19-57% slower than simulated, an expert-parallel step's dispatch "
           "sizes, their floors as simulated: NCCL splits each peer's bytes over a few channels there, whose copy rate "
           "tpsim does not model; read mid-size all-to-alls as optimistic, or calibrate on a log of the box (tpsim fit)";
  if (g.nranks < 4) return std::nullopt;
  if (g.compute_capability >= 100 &&
      (op == CollectiveOp::all_reduce || op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter))
    return fmt::format("on {} NVLink: the one held-out Blackwell node (8x HGX B200, tests/data/measured/SOURCES.md) ran all-reduces "
                       "of 64 B-256 KiB in more time than simulated (the model's times 25-41% short; floor 19-20 us against NCCL's 15.2 "
                       "on 8 ranks; its all-gathers' and reduce-scatters' floor 16 against 11.0), a decode step's sizes: read small "
                       "collectives here as optimistic, or calibrate on a log of the box (tpsim fit)",
                       g.gpu_model);
  if (before_hopper(g.compute_capability) && g.compute_capability >= 80 && gpus_per_thread == 1 && op == CollectiveOp::all_reduce)
    return fmt::format("on {} NVLink, one process per GPU: two held-out 8x A100 sweeps run so (mpirun on an 80 GB box; ABCI's 40 GB "
                       "nodes on NCCL 2.8.4; tests/data/measured/SOURCES.md) ran all-reduces of 1-64 KiB in more time than "
                       "simulated (the model's times 22-51% short; floors 17-20 us against NCCL's 15.2), a decode step's sizes: "
                       "read small all-reduces here as optimistic, or calibrate on a log of the box run with one process per GPU "
                       "(tpsim fit)",
                       g.gpu_model);
  return std::nullopt;
}

// Why the forced algorithm (NCCL_ALGO, or tpsim's `direct`) does not apply to `op` on this group, where
// tpsim runs its own choice instead (a scenario's `algorithm:` narrows every collective's choice where it
// applies); nullopt when it runs, or nothing is forced.
std::optional<std::string> forced_algorithm_unavailable(const std::string& forced, CollectiveOp op, const GroupSummary& g) {
  if (forced == "auto") return std::nullopt;
  if (op == CollectiveOp::all_to_all)
    return forced == "direct" ? std::nullopt : std::optional<std::string>("NCCL's all-to-all is point-to-point sends to every peer, "
                                                                          "which NCCL_ALGO does not choose");
  if (forced == "tree" && op != CollectiveOp::all_reduce) return "NCCL's tree runs all-reduce only";
  if (forced == "direct" && g.nranks != 2) return "direct is tpsim's exchange of 2 ranks";
  if (forced != "nvls" || g.nvls_possible || g.nvls_tree_possible) return std::nullopt;
  if (std::any_of(g.not_in_release.begin(), g.not_in_release.end(), [](const std::string& w) { return w.rfind("NVLS", 0) == 0; }))
    return "the NCCL release predates NVLS";
  if (g.staged) return "its paths are host-staged (P2P off, or beyond the P2P level), and NVLS needs P2P through NVSwitch";
  return "NVLS needs more than 2 GPUs of Hopper or later whose every link runs through NVSwitch, in one node, or for an "
         "all-reduce across such nodes one ring per GPU (NVLS-tree)";
}
}  // namespace

// aws-ofi-nccl sets NCCL_PROTO=simple when the EFA device does not promise in-order 128-byte writes
// (nccl_ofi_net.cpp, platform-aws.cpp): p4d and p4de print it, p5 does not. Beyond 2 nodes the
// held-out sweeps are the only check of the defaults (tests/data/measured/nccl/manifest.yaml).
std::vector<std::string> CollectiveModel::group_notes(CollectiveOp op, const std::vector<int>& gpus) const {
  std::vector<std::string> notes;
  if (gpus.size() < 2) return notes;
  const GroupSummary& g = summary(op, gpus);
  if (!g.not_in_release.empty())
    notes.push_back(fmt::format("NCCL {} predates {}, which these GPUs and links would run: simulated without, as that release ran",
                                spec_.nccl_version, fmt::join(g.not_in_release, ", ")));
  if (nccl_newer_than_read(spec_.nccl_version))
    notes.push_back(fmt::format("NCCL {} is newer than the releases tpsim has read (to {}.{}): simulated as {}.{} behaves",
                                spec_.nccl_version, NCCL_NEWEST_READ[0], NCCL_NEWEST_READ[1], NCCL_NEWEST_READ[0], NCCL_NEWEST_READ[1]));
  if (const auto why = forced_algorithm_unavailable(spec_.algorithm, op, g))
    notes.push_back(fmt::format("algorithm {} forced, which does not apply to {} on these {} GPUs ({}): simulated with {}",
                                spec_.algorithm, collective_op_name(op), g.nranks, *why,
                                algorithm_name(choose_algorithm(op, g.nranks, g.tree_possible))));
  if (!calibration_)
    if (auto note = held_out_lean_note(g, op, spec_.gpus_per_thread)) notes.push_back(std::move(*note));
  if (g.nodes < 2) return notes;
  // EFA's GPUs before Hopper: Simple only (aws-ofi-nccl), and NCCL flushes each Simple receive.
  const bool efa_before_hopper = efa_forces_simple(g.transport, g.nodes, g.compute_capability);
  if (spec_.protocol == "auto" && efa_before_hopper)
    notes.push_back(fmt::format("across nodes over AWS EFA with {} GPUs: simulated with Simple only, as aws-ofi-nccl sets "
                                "NCCL_PROTO=simple where the EFA device does not promise in-order 128-byte writes (p3dn, p4d, p4de: "
                                "their logs print 'NCCL_PROTO set by environment to simple'); p5 and later keep LL and LL128",
                                g.gpu_model));
  if (efa_before_hopper)
    notes.push_back(fmt::format("across nodes over AWS EFA with {} GPUs: each Simple network step also waits for NCCL's flush of "
                                "what it received (GPUs before Hopper: paths.cc ncclTopoNeedFlush), one more EFA operation, {:.0f} us",
                                g.gpu_model, efa_flush_s() * 1e6));
  const bool fitted_here = calibration_ && std::any_of(calibration_->collectives.begin(), calibration_->collectives.end(),
                                                       [&](const CollectiveCalibration& e) { return e.nodes >= g.nodes; });
  // The held-out EFA sweeps' signed error by size band (held_out_collectives.py): 64 KiB-1 MiB, three 2x p5
  // and three 2x p4d/p4de logs, all 16-28% fast; 1-16 MiB four of them 13-41% fast, two p5 within 3% (session 42).
  if (op == CollectiveOp::all_reduce && g.transport == NetTransport::efa && !fitted_here)
    notes.push_back("across nodes over AWS EFA: six held-out 2-node EFA sweeps (three p5, three p4d/p4de; "
                    "tests/data/measured/SOURCES.md) ran 64 KiB-1 MiB all-reduces in more time than simulated (the model's "
                    "times 16-28% short, each box's median over those sizes), 1-16 MiB 13-41% short on four of them (the "
                    "p4d/p4de and the p5 on NCCL 2.22; within 3% on the two p5 that print no version, read as a current NCCL "
                    "that runs NVLS-tree there), 32 MiB and up at most 25% short, most within 15%: read mid sizes over EFA as "
                    "optimistic, or calibrate on a log of the cluster (tpsim fit)");
  // Slingshot: the held-out quad-GH200 sweeps (Alps, santis, Olivia) against the RDMA defaults.
  if (g.transport == NetTransport::cxi && !fitted_here)
    notes.push_back("across nodes over HPE Slingshot (net_transport cxi, libfabric's cxi provider through aws-ofi-nccl): not "
                    "modelled apart from RDMA, whose defaults run here; three held-out 2-node quad-GH200 all-reduce sweeps "
                    "(tests/data/measured/SOURCES.md) ran 4 KiB-8 MiB in more time than simulated (the model's times 27-72% "
                    "short), 16-128 MiB up to 25% longer: calibrate on a log of the cluster (tpsim fit --net-transport cxi)");
  if (op == CollectiveOp::all_reduce && g.nodes == 2 && !fitted_here)
    notes.push_back("across 2 nodes: 10 held-out 2-node boxes (RoCE, AWS EFA, InfiniBand, one shared NIC; "
                    "tests/data/measured/SOURCES.md) ran 64 KiB-1 MiB all-reduces, a decode step's sizes, in more time than "
                    "simulated (the model's times 16-32% short, each box's median over those sizes; the recorded InfiniBand "
                    "pair's 6%), a lean whose cause tpsim has not found (NCCL's trees there run every channel, from 4 KiB "
                    "each: enqueue.cc): read them as optimistic, or calibrate on a log of the box (tpsim fit)");
  if (g.nodes > 2 && !fitted_here)
    notes.push_back(fmt::format("across {} nodes: the defaults were fitted on 2-node logs; held-out 4- and 8-node H100 InfiniBand "
                                "sweeps (tests/data/measured/SOURCES.md, nccl-tests#309) ran 1-16 MiB all-reduces in more time than "
                                "simulated (the model's times 10-49% short), 32 MiB-8 GiB within 27% either way: read mid-size "
                                "times here as optimistic, or calibrate on a log of {} nodes (tpsim fit)",
                                g.nodes, g.nodes));
  if (op == CollectiveOp::all_reduce && spec_.nccl_version.empty() && !calibration_)
    notes.push_back("NCCL version not given: a Simple tree's chunk is one 512 KiB step a channel at every size, stored and "
                    "forwarded whole at each hop of the chains inside the nodes, as from NCCL 2.20; before 2.20 it shrinks at "
                    "medium sizes and waits less at each hop (--nccl-version, or a log that prints it)");
  if (g.nvls_tree_possible && g.nodes == 2 && spec_.nccl_version.empty() && !calibration_)
    notes.push_back("NCCL version not given: on 2 nodes NVLS-tree runs where NCCL's tuner picks it from 2.28 (by its line, "
                    "without its chunk pipeline's fill: from about 1 MiB on 2x H100 InfiniBand), and costs the fill too; before "
                    "2.28 where tpsim's own costs put it (there from about 16 MiB; --nccl-version, or a log that prints it)");
  return notes;
}

// What the hardware allows but the given NCCL release lacks is withheld, and named for the notes.
void CollectiveModel::withhold_unreleased(bool& offered, const char* what, std::array<int, 2> release, GroupSummary& g) const {
  if (!offered || nccl_offers(spec_.nccl_version, release)) return;
  offered = false;
  g.not_in_release.push_back(fmt::format("{} (NCCL {}.{})", what, release[0], release[1]));
}

const GroupSummary& CollectiveModel::summary(CollectiveOp op, const std::vector<int>& gpus) const {
  const auto key = std::pair{static_cast<int>(op), gpus};
  if (const auto it = summaries_.find(key); it != summaries_.end()) return it->second;
  return summaries_.emplace(key, build_summary(op, gpus)).first->second;
}

GroupSummary CollectiveModel::build_summary(CollectiveOp op, const std::vector<int>& gpus) const {
  GroupSummary g;
  g.nranks = int(gpus.size());
  g.staging = staging_rates();
  const auto& channel_rings = routes(op, gpus);
  std::set<int> nodes;
  double raw = std::numeric_limits<double>::infinity();  // narrowest edge of a ring
  bool all_nvswitch = true, intra_nvswitch = true;  // every link NVSwitch; every link of the edges within a node
  bool nic_near = true;                             // every network edge reaches its NIC without the CPU
  g.compute_capability = std::numeric_limits<int>::max();  // the group's oldest GPU decides
  for (int gi : gpus) {
    const GpuDesc& gpu = *topology_.platform().gpu(gi);
    nodes.insert(gpu.node);
    if (gpu.spec->compute_capability < g.compute_capability)
      g.compute_capability = gpu.spec->compute_capability, g.gpu_model = gpu.model, g.gpu_spec = gpu.spec;
  }
  double staged = std::numeric_limits<double>::infinity();  // slowest staged edge
  double port = std::numeric_limits<double>::infinity();  // narrowest edge within a node
  for (const auto& ring : channel_rings)
    for (const auto& [a, b] : edges(op, ring)) {
      const GpuPath& p = topology_.path_in(ring, a, b);
      g.worst_class = std::max(g.worst_class, p.path_class);
      if (p.path_class != PathClass::NET) g.intra_class = std::max(g.intra_class, p.path_class);
      g.staged = g.staged || p.staged;
      if (p.staged) {
        const StagedEdge e = staged_edge(topology_.platform(), p);
        const double rate = staged_rate_Bps(e, g.staging);
        if (rate < staged) {
          staged = rate, g.staged_edge = e;
          g.staged_edge->nics_near_both = nics_near_both(topology_.platform(), p);
        }
      }
      g.all_nvl = g.all_nvl && p.path_class == PathClass::NVL;
      if (p.path_class == PathClass::NET) nic_near = nic_near && !through_cpu(topology_.platform(), p);
      raw = std::min(raw, p.bottleneck_Bps);
      if (p.path_class != PathClass::NET) port = std::min(port, p.bottleneck_Bps);
      g.wire_latency_s = std::max(g.wire_latency_s, p.latency_added_s);
      for (const auto& leg : p.legs)
        for (const auto& l : leg.links) {
          const bool nvswitch = topology_.platform().links[l.link].kind == LinkKind::nvswitch;
          all_nvswitch = all_nvswitch && nvswitch;
          if (p.path_class != PathClass::NET) intra_nvswitch = intra_nvswitch && nvswitch;
        }
    }
  g.nodes = int(nodes.size());
  g.amd_host = topology_.platform().cpu_vendor == "amd";
  g.x86_host = topology_.platform().cpu_vendor != "arm" && topology_.platform().cpu_vendor != "power";
  g.transport = net_transport_of(topology_.platform().net_transport);
  if (channel_rings.size() > 1 && op != CollectiveOp::all_to_all) {
    // Several rings share links, within a node (an NVLink mesh) and across nodes (eight rail rings
    // through one shared NIC): on every directed link each ring gets the capacity over the rings
    // crossing it, and runs at its smallest such share. This is the wire rate a calibration's
    // fraction applies to; a rail-optimised cluster (one NIC per ring) keeps its NICs' rate.
    std::map<int, int> crossings;
    for (const auto& ring : channel_rings)
      for (const auto& [a, b] : edges(op, ring))
        for (const auto& leg : topology_.path(a, b, g.nranks).legs)
          for (const auto& l : leg.links) ++crossings[resource_of(l)];
    const std::vector<double> cap = resource_capacities();
    raw = std::numeric_limits<double>::infinity();
    for (const auto& [resource, count] : crossings) raw = std::min(raw, cap[resource] / count);
  }
  g.raw_Bps = raw * double(channel_rings.size());  // the rings run side by side
  if (g.staged_edge) g.staged_Bps = staged * double(channel_rings.size());
  g.nvls_possible = all_nvswitch && g.nodes == 1 && g.compute_capability >= 90 && g.nranks > 2 && op != CollectiveOp::send_recv &&
                    op != CollectiveOp::all_to_all;
  // Across nodes: the rail rings (one per GPU of a node), every edge within a node through NVSwitch.
  const bool rail_rings = g.nodes > 1 && channel_rings.size() > 1 && g.nranks == g.nodes * int(channel_rings.size());
  g.nvls_tree_possible = rail_rings && intra_nvswitch && g.compute_capability >= 90 && op == CollectiveOp::all_reduce && !g.staged;
  // NCCL (tuning.cc) never enables LL128 below Volta (sm_70).
  // LL128 needs the ring's paths within the node up to NVLink (tuning.cc: typeIntra <= PATH_NVB); a path
  // NCCL routes through the CPU (P2P off, or beyond the P2P level) is not.
  g.ll128_enabled = g.compute_capability >= 70 && (g.nodes == 1 ? g.all_nvl && !g.staged
                                               : g.intra_class == PathClass::NVL && !g.staged && g.transport != NetTransport::tcp &&
                                                     (nic_near || g.compute_capability >= 90));
  withhold_unreleased(g.nvls_possible, "NVLS", nccl_release_of(Algorithm::nvls), g);
  withhold_unreleased(g.nvls_tree_possible, "NVLS-tree", nccl_release_of(Algorithm::nvls_tree), g);
  withhold_unreleased(g.ll128_enabled, "LL128", NCCL_LL128_RELEASE, g);
  g.tree_possible = g.nodes > 1 && op == CollectiveOp::all_reduce;
  withhold_unreleased(g.tree_possible, "tree", nccl_release_of(Algorithm::tree), g);
  g.port_Bps = port;
  // (More ranks than nodes: the rings have edges within a node, and intra_class is theirs.)
  if (g.nranks > g.nodes && g.intra_class == PathClass::NVL && !g.staged) g.nvlink_fabric = intra_nvswitch ? "switch" : "direct";
  if (g.nodes > 1) tree_rates(op, channel_rings, g);
  return g;
}

}  // namespace tpsim
