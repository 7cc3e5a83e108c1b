// NCCL's cost model as tpsim's defaults (no calibration): base latency per (algorithm, protocol),
// hop latency per (path class, protocol), protocol payload efficiency, the share of NVLink's wire
// rate rings reach, NVLS, the LL cap per GPU generation and serial launches (host staging:
// host_staging.hpp). Each constant names its source: NCCL's src/graph/tuning.cc or the recorded
// logs (calibrate/recorded).
#pragma once
#include <optional>
#include <string>

#include "config/gpu_catalog.hpp"
#include "host_staging.hpp"
#include "topology.hpp"
#include "util/nccl_terms.hpp"

namespace tpsim {

// Latency steps of an algorithm: 2(N-1) for a ring all-reduce, N-1 for all-gather/reduce-scatter,
// 2 ceil(log2 N) for a tree, 2 for NVLS (into the switch and back), 1 for send/recv and
// all-to-all (the sends to every peer in flight together).
int latency_steps(Algorithm a, CollectiveOp op, int nranks);

// Per-step latency of a path class, protocol and algorithm (s); `staged`: through host memory.
// NCCL's NVLink and PCIe steps differ between ring (and direct) and tree (tuning.cc hwLat);
// `pairwise`: send/receive and all-to-all, whose Simple NVLink step keeps NCCL's figure.
double hop_latency_s(PathClass c, bool staged, Protocol p, Algorithm a = Algorithm::ring, bool pairwise = false);

// Where a collective's steps run, as its fixed cost sees them: the ranks, the slowest path class
// (host-staged or not), the nodes, the slowest class within a node, the hosts' CPU vendor (NCCL's
// network post overhead) and the transport between nodes (TCP: the hosts' socket stacks).
// How NCCL's network steps travel between nodes, a platform's net_transport: RDMA (InfiniBand,
// RoCE), TCP (NCCL's sockets, or a TCP-based net plugin), AWS EFA (aws-ofi-nccl), HPE Slingshot
// (aws-ofi-nccl's cxi provider: RDMA's costs, its own name so that fits stay on it).
enum class NetTransport { rdma, tcp, efa, cxi };
// "tcp", "efa" and "cxi" as named; anything else (rdma, or not given) RDMA.
NetTransport net_transport_of(std::string_view name);

// A GPU NCCL flushes network receives for (paths.cc ncclTopoNeedFlush: "Ampere and earlier"); an
// unknown compute capability (0) is not assumed to be one.
inline bool before_hopper(int compute_capability) { return compute_capability > 0 && compute_capability < 90; }
// A GPU whose LL128 all-reduces on NVLink run at NCCL's share (Hopper and later); unknown (0) is not.
inline bool hopper_or_later(int compute_capability) { return compute_capability >= 90; }

struct LatencyPath {
  int nranks = 2;
  PathClass worst_class = PathClass::NVL;
  bool staged = false;
  int nodes = 1;
  PathClass intra_class = PathClass::NVL;
  bool amd_host = false;
  NetTransport transport = NetTransport::rdma;
  bool gdr_flush = false;  // GPUs before Hopper: NCCL flushes each Simple receive from the network (ncclTopoNeedFlush)
};

// The default fixed cost of one collective: base(algorithm, protocol) + steps * hop. A tree across
// `nodes` > 1 is NCCL's (tuning.cc): base + 2 ((N / nodes - 1) x intra-node hop + log2(nodes) x
// network hop), the chain inside each node paying the intra class's tree hop; a ring across
// nodes pays the network hop on its 2 (nodes - 1) crossing steps only (all-reduce; nodes - 1
// otherwise), its other steps at least NCCL's network post overhead (2 us on AMD hosts); with one
// GPU per node every step is a network hop. Over TCP every network hop also pays TCP_NET_STEP, over
// AWS EFA EFA_NET_STEP (and EFA_SIMPLE_COMPLETION with Simple, and EFA_NET_STEP again for the flush of
// a Simple receive on GPUs before Hopper: gdr_flush).
double default_latency_s(Protocol p, Algorithm a, CollectiveOp op, const LatencyPath& path);
// What NCCL's flush of a Simple receive costs per network step over EFA on GPUs before Hopper.
double efa_flush_s();

// The default bus bandwidth of a protocol over rings whose narrowest edges carry raw_Bps
// (all rings together; for host-staged rings, their staged rate, host_staging.hpp), before the
// LL cap: NVLink rings reach NVLINK_EFF of the wire, every protocol carries its payload share;
// an LL128 all-reduce on NVLink before Hopper reaches LL128_ALL_REDUCE_EFF of the wire (measured);
// LL across nodes, whose lines go through host memory, a quarter of the NICs' rate on a ring and
// 0.92 / 3.8 of it on a tree (NCCL's tuning.cc factors).
double default_bus_bw_Bps(Protocol p, Algorithm a, CollectiveOp op, int nranks, PathClass c, bool staged, double raw_Bps,
                          int compute_capability);

// The share of a protocol's bytes that is payload: LL 1/2 (4 B of flags per 4 B), LL128 120/128, Simple 1.
double payload_share(Protocol p);

// NVLS-tree (NCCL's NVLS_TREE, Hopper NVSwitch nodes, all-reduce across nodes): inside each node
// NVLS (every GPU sends S into the switch and reads S back, at NVLS_TREE_EFF of its port), across nodes
// NCCL's double binary tree, which moves S per node each way on 2 nodes and 2S beyond (tuning.cc
// halves bwInter beyond 2 nodes), over the node's NICs at TREE_NET_EFF:
//   algbw = min(port x NVLS_TREE_EFF x nvls_generation_share, node NICs x TREE_NET_EFF / (1 on 2 nodes, 2 beyond)),
//   latency = NVLS's + the network steps' chunk pipeline (nvls_tree_pipeline_s).
// A ring all-reduce moves 2(N-1)/N S per node each way, so on 2 nodes the tree needs half the network.
// Across nodes an LL128 all-reduce also runs its chain within each node at LL128_ALL_REDUCE_EFF
// of a GPU's NVLink port: its bus bandwidth is at most this.
double ll128_chain_bus_Bps(double port_Bps);
// NVLS and NVLS-tree shares of a GPU's port are Hopper's measured ones times this: NCCL's nvlsEfficiency
// of the GPU's generation over Hopper's (tuning.cc: 0.74 / 0.85 from Blackwell, sm_100, on; 1 before).
double nvls_generation_share(int compute_capability);
// An NVLS all-reduce's rate on n ranks against the 8 its share was measured on: its ports carry
// S (1 + 1/n), so (1 + 1/8) / (1 + 1/n); 1 for the other collectives.
double nvls_ranks_factor(CollectiveOp op, int n);
double nvls_tree_bus_bw_Bps(CollectiveOp op, int nranks, int nodes, double port_Bps, double node_net_Bps, int compute_capability);
// The bytes of one edge of the rail rings that stand for an NVLS-tree's traffic, so that the
// flows take algbw's time alone: each GPU's network edge carries its NIC's share of the tree,
// S x (1 on 2 nodes, 2 beyond) / (TREE_NET_EFF k), its k - 1 edges within the node S / (NVLS_TREE_EFF (k - 1)).
double nvls_tree_edge_bytes(double size_B, int nodes, int gpus_per_node, bool network, int compute_capability);

// A tree across nodes (NCCL's double binary tree between the nodes, a chain within each): every
// channel's chain carries its share of S up and its share of the result back down each edge within
// a node, 2 S over the node's ring edges; across nodes the tree moves S per node each way on 2
// nodes, 2 S beyond, at TREE_NET_EFF (a ring moves 2(N-1)/N S through the NICs). chain_Bps and
// node_net_Bps are the rates at which the rings' edges within a node and across nodes carry S split
// over the rings (the solver's, so NICs shared by several rings count once):
//   algbw = min(chain x NVLINK_EFF (on NVLink) / 2, node NICs x TREE_NET_EFF / (1 on 2 nodes, 2 beyond)),
//   bus bandwidth = algbw x 2(N-1)/N x the protocol's payload share.
double tree_bus_bw_Bps(Protocol p, CollectiveOp op, int nranks, int nodes, PathClass intra, double chain_Bps, double node_net_Bps);
// The bytes of one ring edge that stand for a tree's traffic across nodes (k rings): S x 2 / k
// within a node, S x (1 on 2 nodes, 2 beyond) / (TREE_NET_EFF k) across.
double tree_edge_bytes(double size_B, int nodes, int rings, bool network);

// A Simple tree stores and forwards whole chunks (prims_simple.h: one slice per chunk for a tree):
// a chunk crosses each hop of the chain inside a node, up and then down, before the next hop starts
// it, and beyond 2 nodes each interior level of NCCL's double binary tree as well. The bandwidth
// term counts the busiest hop once per chunk; the others add, once, the time a chunk takes there:
//   fill = min(chunk x channels, S) x (2 (ranks per node - 1) / chain rate + 2 (log2(nodes) - 1) / node NICs' rate),
// channels = 2 per NIC, the chain at NVLINK_EFF of its links on NVLink.
struct TreeFill {
  double size_B = 0;
  int nranks = 1, nodes = 1, nics_per_node = 0;
  double node_net_Bps = 0, chain_Bps = 0;
  PathClass intra = PathClass::NVL;
  bool chunks_shrink = false;  // NCCL before 2.20 (nccl_tree_chunks_shrink)
};
double tree_fill_s(const TreeFill& t);

// NVLS on one node streams S in loops: each of NCCL's NVLS channels (16 on Hopper; on Blackwell 24
// from NCCL 2.27, 32 before) and heads (one per GPU) moves one chunk a loop, 128 KiB (nvlsChunkSize),
// halved to 64 KiB below 64 x channels x heads x 128 KiB, to 32 KiB below 8 x that x 64 KiB and to
// 16 KiB below 2 x that x 32 KiB (enqueue.cc calcCollChunking, since NCCL 2.18): small sizes run
// small chunks. A loop costs NVLS_LOOP_S beyond its bytes, and the pipeline fills over
// NVLS_FILL_LOOPS loops before it streams:
//   pipeline = fill x (loop + channels x heads x chunk x bus factor / bus bandwidth) + loops x loop,
//   loops = ceil(S / (channels x heads x chunk)).
// Its fixed cost (NVLS_BASE_LAT) and the loop terms were fitted with NVLS's share of the port
// (collective_defaults.cpp).
struct NvlsPipeline {
  double size_B = 0;
  int nranks = 1;
  CollectiveOp op = CollectiveOp::all_reduce;
  double bus_bw_Bps = 0;
  int compute_capability = 90;
  std::string_view nccl_version;
};
// NCCL's NVLS channels: 16 on Hopper; on Blackwell 32 across nodes, and on one node 24 from NCCL 2.27, 32 before.
int nvls_channels(int compute_capability, std::string_view nccl_version, int nodes);
double nvls_chunk_B(double size_B, double concurrent);
double nvls_pipeline_s(const NvlsPipeline& p);

// NVLS-tree's network steps stream chunks as well: NCCL's NVLS_TREE chunk is 128 KiB (64 KiB from 4
// nodes: nvlsTreeMaxChunkSize), halved to 64 KiB below 4 x channels x heads x 128 KiB and to 32 KiB
// below channels x heads x that (enqueue.cc calcCollChunking). Each step fills over NVLS_TREE_FILL_LOOPS
// loops of channels x heads chunks at the slower of the NVLS part's rate and the node's NICs'; 2 nodes
// run one exchange, more nodes 2 log2(nodes) steps (up the tree and down):
//   pipeline = steps x fill x channels x heads x chunk / min(port x NVLS-tree's share of it, NICs x TREE_NET_EFF).
// Heads: one a NIC (NCCL's NVLS heads), at most one a GPU.
struct NvlsTreePipeline {
  double size_B = 0;
  int nranks = 1, nodes = 1;
  double port_Bps = 0;
  int compute_capability = 90;
  std::string_view nccl_version;
  double node_net_Bps = 0;  // a node's NICs (0: not known, the NVLS part's rate alone)
  int nics_per_node = 0;    // NVLS heads, one a NIC (0: not known, one a GPU)
};
// Whether NCCL's tuner ranks a 2-node NVLS-tree by its line alone (no fill): from NCCL 2.28, which counts
// its NICs twice on 2 nodes (tuning.cc "Handle 2 node case of NVLSTree"); before, it ranked NVLS-tree
// slower than tpsim's line, and tpsim's own costs (with the fill) stand for its choice.
bool nvls_tree_ranked_without_fill(int nodes, std::string_view nccl_version);
double nvls_tree_chunk_B(double size_B, double concurrent, int nodes);
double nvls_tree_pipeline_s(const NvlsTreePipeline& p);

// LL's synchronisation per step once NCCL has grown its thread group past the smallest: NCCL runs a
// small LL collective on one channel of 64 threads (enqueue.cc halves 512 threads while below the
// per-thread threshold, 8 B of LL, x ranks on a ring, and stops at 64) and adds threads and channels
// with the size. From the size at which it grows them, 64 x the threshold (4 KiB on a ring of 8,
// 512 B on a tree across nodes), each step of the ring or tree (tree across nodes: 2 (ranks per node
// - 1 + log2 nodes)) costs LL_STEP_SYNC_S more:
//   sync = steps x LL_STEP_SYNC_S when S >= 64 x threshold, else 0.
// A step's synchronisation and its data overlap, and so do the serial launches of one thread
// driving several GPUs (the late GPUs' launches hold the early ones' steps anyway), so what the
// line adds to its latency is
//   ll_sync = max(0, sync - launch stagger - bus bytes / bus bandwidth).
double ll_sync_s(Algorithm a, CollectiveOp op, int nranks, int nodes, double size_B);

// A Simple tree's chunk per channel: one step, 512 KiB, or S / channels when smaller. Before NCCL
// 2.20 it is halved while a channel would run fewer than depth x 8 chunks (down to 128 KiB), depth x 4
// (64 KiB) and depth (32 KiB), depth = ranks per node - 1 + log2(nodes) (enqueue.cc, connect.cc).
double tree_chunk_B(double size_B, int channels, int depth, bool shrinks);
// NCCL's factor on a tree all-reduce's bandwidth at size S (tuning.cc treeCorrectionFactor): below 1
// from 64 B (Simple), 1 KiB (LL) or 2 KiB (LL128) up to 16-256 MiB, lowest (0.4-0.5) around
// 128 KiB-1 MiB; also on NVLS-tree from Blackwell (sm_100) on x86 hosts.
double tree_correction(Protocol p, double size_B);
// aws-ofi-nccl sets NCCL_PROTO=simple where the EFA device does not promise in-order 128-byte writes:
// its platform table gives p4d and p4de (A100) the send/receive protocol, whose 128-byte check fails
// there (platform-aws.cpp), and their logs print "NCCL_PROTO set by environment to simple"; p5 and
// later (H100 on) keep LL and LL128. EFA's GPUs before Hopper (p3dn's V100, p4d's A100) run Simple.
bool efa_forces_simple(NetTransport transport, int nodes, int compute_capability);

// A group's rings as the tuner sees them: the slowest path class, host staging, NVLink only,
// NVLS offered (NVSwitch, Hopper or later, one node, > 2 ranks), nodes, the narrowest edge's
// wire rate times the rings, the scenario's added link latency, the oldest GPU.
struct GroupSummary {
  int nranks = 0;
  PathClass worst_class = PathClass::NVL;
  bool staged = false, all_nvl = true, nvls_possible = false;
  // NCCL enables LL128 (tuning.cc) when the edges within a node are NVLink and, across nodes over
  // RDMA, each GPU reaches its NIC without the CPU (PXB or closer; Hopper and later through an
  // NVLink peer, PXN, as well).
  bool ll128_enabled = false;
  // NVLS-tree offered: an all-reduce across nodes of Hopper-or-later GPUs, at least 2 per node,
  // every edge within a node through NVSwitch ports (NCCL enables NVLS_TREE only across nodes).
  bool nvls_tree_possible = false;
  // A tree offered: an all-reduce across nodes (NCCL's tree across nodes, from 2.4).
  bool tree_possible = false;
  // What the GPUs and links allow but the given NCCL release does not offer yet (nccl_release_of):
  // "LL128 (NCCL 2.5)", "NVLS (NCCL 2.17)", "NVLS-tree (NCCL 2.18)"; withheld from the choice.
  std::vector<std::string> not_in_release;
  // Within a node over NVLink: "switch" (every edge through NVSwitch ports) or "direct" (links from
  // GPU to GPU: a board, a bridge, a mesh); "" when the edges within a node are not all NVLink.
  std::string nvlink_fabric;
  double port_Bps = 0;      // the narrowest edge within a node (a GPU's port into the switch)
  // Across nodes: the rates at which the rings' network edges, and their edges within a node,
  // carry a size split over the rings (max-min over the links, so a NIC several rings share counts once).
  double node_net_Bps = 0;
  double chain_Bps = 0;
  int nodes = 1;
  int nics_per_node = 0;                   // across nodes: the NICs a node's rings leave through
  PathClass intra_class = PathClass::NVL;  // the slowest class of the edges within a node
  bool amd_host = false;                   // the platform's cpu_vendor is amd (NCCL's network overhead)
  bool x86_host = true;                    // not arm or power (NCCL's NVLS-tree correction on Blackwell)
  NetTransport transport = NetTransport::rdma;  // the platform's net_transport
  double raw_Bps = 0;
  // Host-staged rings: the slowest staged edge's stages and the rings' staged rate with the
  // default host-copy rates (staged_rate_Bps times the rings).
  std::optional<StagedEdge> staged_edge;
  double staged_Bps = 0;
  StagingRates staging = default_staging_rates();  // the rates staged_Bps was computed with
  double wire_latency_s = 0;
  int compute_capability = 0;
  std::string gpu_model;
  const GpuSpec* gpu_spec = nullptr;

  LatencyPath latency_path() const {
    return {nranks, worst_class, staged, nodes, intra_class, amd_host, transport, before_hopper(compute_capability)};
  }
};

// LL's bus-bandwidth cap (NCCL's tuning.cc llMaxBws; Ampere's measured): by GPU generation within a node, by host
// CPU vendor and node count across nodes.
double ll_max_bus_Bps(int compute_capability, int nodes = 1, bool amd_host = false);

// One thread launching a collective on N GPUs (nccl-tests -g N) launches them one after the
// other: (N - 1) * SERIAL_LAUNCH_S more fixed cost than one process per GPU; none where the NCCL
// release launched them as one group (before 2.9: nccl_group_launch).
double serial_launch_s(int gpus_per_thread, std::string_view nccl_version);

// A path class key as calibration files name it: NVL, PIX, PXB, PHB, SYS, NET; SHM (or SYS)
// for host-staged paths.
std::string class_key(PathClass c, bool staged);

}  // namespace tpsim
