#include "collective_defaults.hpp"

#include <cmath>

namespace tpsim {
namespace {

constexpr double US = 1e-6;
// NCCL's base latency per protocol (LL, LL128, Simple), src/graph/tuning.cc.
constexpr double BASE_LAT[3] = {6.8 * US, 14.0 * US, 8.4 * US};
// Per-step latency by path (LL, LL128, Simple). NVL and PCIe P2P follow NCCL's hwLat, which
// has a column per algorithm (tuning.cc hwLatencies, NVLINK and PCI rows): a ring step costs
// LL 0.6 / LL128 1.9 / Simple 3.4 us on NVLink and 1.0 / 2.5 / 5.7 us on PCIe, a tree step
// 0.6 / 1.25 / 4.0 and 1.0 / 1.9 / 4.0 us. Direct (2 ranks) is NCCL's ring. Host-staged (SHM)
// and SYS steps: LL and LL128 as NCCL's PCIe row. The recorded 2x RTX 2080 Ti log (P2P not
// supported, -g 2) floors at 11.8 us = 6.8 + 2 x 1.05 + 2.9 (one serial launch): 1.05 us per LL step
// (derived). Checked, not fitted: the held-out 8x RTX 4090 (SYS, -g 8) floors at 38.8 us against
// 6.8 + 14 x 1.0 + 7 x 2.9 = 41.1. Simple steps keep the slower staged values.
// A Simple ring step over NVLink costs more than NCCL's 3.4 us: the recorded NVSwitch boxes' ring
// Simple lines (tpsim fit --platform, sizes where Simple runs) have intercepts of 8.4 + 7 or 14 steps
// x 6.9 (OCI A100 all_reduce), 8.3 (A100 NCCL 2.19 all_reduce), 9.4 (H100 all_gather) and 15.1 us
// (H100 reduce_scatter) once the -g 8 serial launches are taken off; 8.8 us is their median
// (derived). It is what NCCL's Simple pays per step for its flags and fences over NVLink, through a
// switch or not; LL and LL128 carry their flags with the data and keep NCCL's figures, and so do
// pairwise sends (HOP_LAT_NVL_PAIRWISE), which wait on no neighbour's step. Checked, not fitted: the
// held-out 8x A100 NVSwitch logs' 8-512 MiB (10-27% fast in all six with 3.4); the direct boards
// (session 24: until then they kept 3.4) - 4x A100 NV4 (Simple sizes ~68 us + S / 224 GB/s once its
// -g 4 launches are off: 22.7% -> 12.8%), 4x V100 NV2 (~50 us: 18.2% -> 14.2%), a 2x RTX 2080 Ti
// NVLink all-gather (~25 us + 1 step; tests/data/measured/launch_mode/) - against them the 8x V100
// hybrid cube mesh, whose 2-128 MiB fit 3.4 (56 us + 7 serial launches + S / 120 GB/s; 14.1% -> 20.4%).
constexpr double HOP_LAT_NVL[3] = {0.6 * US, 1.9 * US, 8.8 * US};
constexpr double HOP_LAT_NVL_PAIRWISE[3] = {0.6 * US, 1.9 * US, 3.4 * US};
constexpr double HOP_LAT_PCIE[3] = {1.0 * US, 2.5 * US, 5.7 * US};
constexpr double HOP_LAT_NVL_TREE[3] = {0.6 * US, 1.25 * US, 4.0 * US};
constexpr double HOP_LAT_PCIE_TREE[3] = {1.0 * US, 1.9 * US, 4.0 * US};
constexpr double HOP_LAT_SHM[3] = {1.0 * US, 2.5 * US, 8.0 * US};
constexpr double HOP_LAT_SYS[3] = {1.0 * US, 2.5 * US, 9.0 * US};
// Across nodes NCCL's NET row: a ring's network step LL 2.7 / LL128 4.0 / Simple 14 us, a tree's
// 5.0 / 8.5 / 14 us; a ring's steps inside the nodes pay at least the network post overhead
// (getNetOverhead: 1 us, 2 us on AMD hosts; x3 for Simple).
constexpr double HOP_LAT_NET[3] = {2.7 * US, 4.0 * US, 14.0 * US};
constexpr double HOP_LAT_NET_TREE[3] = {5.0 * US, 8.5 * US, 14.0 * US};
constexpr double NET_OVERHEAD_S = 1.0 * US, NET_OVERHEAD_AMD_S = 2.0 * US;
// Over TCP (NCCL's sockets, or a TCP-based net plugin such as GPUDirect-TCPXO) a network step also
// pays the hosts' socket stacks: 49 us (derived from the recorded GCP A3 Mega log, TCPXO: its floor,
// 123 us, against 25.2 us for the same 2-node tree over RDMA, over the tree's 2 network steps). A
// 2-node TCP-socket log of 1 GPU per node (aws-samples/aws-do-eks, Karpenter README, EFA disabled;
// GPU not printed) floors at 99-112 us, as 6.8 + 2 x (2.7 + 49) = 110 us has it. The A3 Mega log
// probably ran Simple only (its source's TCPXO profile, calibrate/recorded/SOURCES.md); read so, its
// floor gives 15.3 us a step and fits the log worse (tried, session 29).
constexpr double TCP_NET_STEP = 49.0 * US;
// Over AWS EFA (libfabric's SRD through aws-ofi-nccl) a network step also pays EFA's own latency: 20 us,
// aws-ofi-nccl's tuner model for p5/p5e ("2 nodes, 8B RDMA w/imm lat", src/tuner/nccl_ofi_model.cpp,
// net_lat), and 3 us more for Simple (its TUNER_NET_COMP_OVERHEAD default: completions through NCCL's
// proxy). Checked, not fitted: two published 2x p5.48xlarge all-reduce logs floor at 65-72 us against
// 6.8 + 2 (7 x 0.6 + 5.0 + 20) = 65.2 (tests/data/measured/SOURCES.md). (The plugin also tells NCCL's
// tuner 75 us per network step, platform-aws.cpp: a figure for NCCL's choices, not a measured latency.)
// On GPUs before Hopper NCCL flushes every Simple receive from the network before the GPU reads it
// (paths.cc ncclTopoNeedFlush: "Flush is required on Ampere and earlier"; net.cc iflush, 2.8 to 2.29),
// and its tuner charges Simple's network step the net latency once more for it ("flush extra
// latency", tuning.cc); over EFA the flush is one more EFA operation, EFA_NET_STEP again (over RDMA
// NICs the IB plugin reports no latency, so NCCL charges nothing, nor does tpsim). Checked, not fitted:
// the held-out p4d and p4de logs floor at 177-180 and 161-164 us against 178.4 (138.4 without; their
// medians 31.4% -> 22.4% and 27.0% -> 19.9%).
constexpr double EFA_NET_STEP = 20.0 * US, EFA_SIMPLE_COMPLETION = 3.0 * US;
// A Simple tree's chunk is one step of its buffer (enqueue.cc: chunkSteps 1 for a tree), NCCL_BUFFSIZE
// 4 MiB / NCCL_STEPS 8 = 512 KiB, and NCCL runs 2 channels per searched channel, one searched channel
// per NIC (sjeaugey, NVIDIA/nccl#1041: "Execution channels are typically 2x the search channels";
// 8-NIC H100 nodes print 16 channels, NVIDIA/nccl#1453 on 3 nodes, #1538 on 2; the 2021 p4d log, 4
// NICs, prints 8). The chunk crosses every hop whole (tree_fill_s): the interior network levels,
// checked on the held-out 4- and 8-node H100 sweeps (14.2% -> 10.6%, 22.8% -> 17.4%), and the chains
// inside the nodes, checked on the held-out 2-node A100 EFA sweeps (NCCL 2.20-2.23, no NVLS: p4de
// 19.9% -> 9.9%, p4d 22.4% -> 12.7%, their 0.5-16 MiB 15-67% slower before) and the recorded GCP A3
// Mega log (15.5% -> 10.4%; its 1 GiB-8 GiB now run NVLS-tree, though the log probably ran with NVLS
// off: calibrate/recorded/SOURCES.md). Not fitted.
constexpr double SIMPLE_STEP_B = 512.0 * 1024;
constexpr int CHANNELS_PER_NIC = 2;
// Payload fraction of each protocol: LL sends 4 B of flags per 4 B of data, LL128 120 of 128 B.
constexpr double PROTO_EFF[3] = {0.5, 120.0 / 128.0, 1.0};
// The share of its links a tree's network part reaches: NCCL's tuner takes 0.92 of a tree's bus
// bandwidth (tuning.cc, "model refinements"); the recorded GCP A3 Mega log's NVLS-tree sizes
// (128 MiB-8 GiB) fit S / 183.8 GB/s: 0.919 of its node's 200 GB/s of NICs (checked, not fitted).
constexpr double TREE_NET_EFF = 0.92;
// The share of its NICs' line rate NCCL's network transport reaches (rings and pairwise sends across
// nodes; a tree's is TREE_NET_EFF): 46-48 GB/s per 400 Gb/s NIC (50 GB/s), NVIDIA's figure for NDR
// InfiniBand (AddyLaddy, NVIDIA/nccl-tests#290: "For NDR @ 400Gbps you should see 46-48GB/s per
// NIC"), its midpoint. Checked, not fitted: the held-out 4- and 8-node H100 sweeps' ring sizes
// (1-16 GiB) ran 0.4-8% and 11-18% fast at the full line rate, now within 3.3% and 10-18%.
constexpr double NET_EFF = 0.94;
// A tree's LL across nodes: 1/3.8 of the tree's bandwidth for LL (tuning.cc, "model refinements"),
// not the payload half a ring's LL keeps within a node.
constexpr double TREE_LL_NET_EFF = TREE_NET_EFF / 3.8;
// A ring's LL across nodes: a quarter of its NICs' line rate, not the payload half LL keeps on a
// GPU-to-GPU link. LL's network send buffer sits in host memory even with GPUDirect RDMA (net.cc
// sendProxySetup maps LL's buffer to the host only), so each line crosses the sender's PCIe into host
// memory and the proxy checks every line's flags before it posts the send: the same path as a tree's LL
// (1/3.8 above). NCCL's tuner modelled a ring's LL across nodes at 1/4 up to 2.21 (tuning.cc "nNodes >
// 1 ... 1.0/4.0"); 2.21.5 raised its model to 1/2, but the held-out Snellius all-gather and
// reduce-scatter logs (NCCL 2.22.3, 2 nodes of 4 H100 and 4 x 200 Gb/s NICs: 100 GB/s a node, rings
// only) grow at 23-25 GB/s of bus bandwidth over their LL sizes, 64-512 KiB: 0.23-0.25 of it.
// Checked, not fitted: their 64 KiB-1 MiB from 28% fast to 19-20%, the Snellius all-reduce's from 9%
// fast to 3% slow; no recorded log runs a ring's LL across nodes, and none moved.
constexpr double RING_LL_NET_EFF = 0.25;
// NVLink SHARP (NVLS, NVSwitch multicast, Simple only): an all-reduce on N GPUs of one node streams at
// 0.657 of a GPU's port in S a second at N = 8, its chunk pipeline's cost per loop aside (H100: 274 GB/s
// algbw on 450 GB/s ports at 16 GiB, 480 GB/s busbw, in the recorded DGX H100 log). What the port carries is S (1 + 1/N) each way: each GPU
// heads 1/N of the data, whose reduce reads every GPU's share through the switch
// (multimem.ld_reduce: S out of each GPU, S/N back to the head) and whose store multicasts the sum
// (multimem.st: S/N out of the head, S into each GPU); the scatter and gather copies stay in the
// GPU's own memory (src/device/all_reduce.h, NVLS one node). Away from 8 ranks the same port share
// gives (1 + 1/8) / (1 + 1/N) of the 8-rank rate (nvls_ranks_factor): 0.90 on 4 ranks. Checked, not
// fitted: a published 4-GPU H100 sweep (GPUs 0-3 of an 8-GPU NVSwitch node, NCCL 2.29.2;
// tests/data/measured/nccl/4x-h100-nvswitch-np4-32M-16G.log) plateaus at 367 GB/s busbw (its median
// 12.2% with the 8-rank rate, 2.6% with this, 0.8% with the pipeline).
// Blackwell reaches less of its port: NCCL's tuner counts NVLS at nvlsEfficiency of the NVLink
// bandwidth, 0.85 on Hopper and 0.74 on Blackwell (tuning.cc), so a GPU from Blackwell on runs at
// 0.74 / 0.85 of the Hopper share measured here (nvls_generation_share). Checked, not fitted: a
// published 8x HGX B200 sweep (tests/data/measured/nccl/8x-b200-hgx-vultr-2026.log) reaches 481.7 GB/s
// algbw at 16 GiB, 0.535 of the 900 GB/s port.
// The share and NVLS's chunk pipeline (nvls_pipeline_s) were fitted together on the recorded DGX H100
// log's 2 MiB-16 GiB (where NCCL runs NVLS on 8 H100: it leaves rings at 2 MiB, NCCL 2.30's own
// choice on 8x H100 and 8x H200): a fixed 11 us, 1.8 loops of fill, 4.3 us a loop and 0.657 of the
// port (517 GB/s of bus bandwidth), all within 4.5% (derived; the earlier line, 67 us + bus bytes /
// 468 GB/s, fitted 16 MiB up and ran 2-8 MiB 40-90% slow). Checked, not fitted
// (tests/data/measured/SOURCES.md): Together's -g 8 H100 sweep 2 MiB-8 GiB within 6.5%, nccl-tests#290's
// 128 MiB-4 GiB within 3.4%, the 8x B200 sweep 128 MiB-16 GiB within 6% (its step between 1 and 2
// GiB, where 24 channels of 8 heads move to 128 KiB chunks at 1.5 GiB; 4-64 MiB 17-23% fast).
constexpr double NVLS_EFF = 0.657;
constexpr double NCCL_NVLS_EFFICIENCY_HOPPER = 0.85, NCCL_NVLS_EFFICIENCY_BLACKWELL = 0.74;
constexpr double NVLS_BASE_LAT = 11.0 * US;
constexpr double NVLS_FILL_LOOPS = 1.8, NVLS_LOOP_S = 4.3 * US;
// NVLS-tree across nodes (NCCL's NVLS_TREE): NVLS inside the nodes, then the network steps of a tree,
// each streaming chunks too. The recorded 2x HGX H100 InfiniBand log's NVLS-tree sizes (128 MiB to
// 16 GiB) fit 215 us + S / 251.5 GB/s within 0.3%: its NVLS part runs at 251.5 / 450 = 0.56 of a GPU's
// port (derived) and 55 us is the intercept a straight line through one node's NVLS sizes had (derived;
// NCCL's tuner counts 14, tuning.cc hwLat NET NVLSTree, which leaves 128 MiB-1 GiB 20-30% fast). The
// other 160 us is the network steps' fill (nvls_tree_pipeline_s): there NCCL runs 128 KiB chunks on
// 16 channels x 8 heads, a loop of 16 MiB that the NVLS part moves in 66.6 us, so a step fills over
// 160 / 66.6 = 2.4 loops (derived). On 2 nodes the tree's reduce and broadcast run as one exchange
// (NCCL's tuner counts the NICs twice there, tuning.cc), beyond as 2 log2(nodes) steps on 64 KiB chunks
// (nvlsTreeMaxChunkSize's default from 4 nodes, NCCL 2.19 on): 2.4 loops of 8 MiB, 80 us a step on
// H100, what the 8- and 10-node logs' 128 MiB-16 GiB had fitted with a fixed step. A loop moves at its
// slower stage, the NVLS part or the node's NICs, and NCCL runs one head a NIC (the held-out 2x DGX H200
// with one NIC a node: 14.8% -> 12.4%). Checked, not
// fitted: the recorded log's 16 and 32 MiB (64 KiB chunks: +13% and +30% with the fixed 160 us;
// tests/data/measured/SOURCES.md for the held-out 2-node logs), 2x H200 RoCE (231 us + S / 259 GB/s
// fitted by tpsim), 2x H100 InfiniBand with NCCL_ALGO=NVLSTree (182 us + S / 242 GB/s).
constexpr double NVLS_TREE_BASE_LAT = 55.0 * US, NVLS_TREE_FILL_LOOPS = 2.4;
constexpr double NVLS_TREE_EFF = 0.56;  // Hopper's; later GPUs x nvls_generation_share, as NVLS_EFF
// NCCL counts 20 GB/s per 25 GB/s NVLink (SM80; 20.6 on SM90) when it sizes its rings, and
// that is what rings reach: 235 GB/s busbw on DGX A100 (300 GB/s ports) and 355 GB/s on an
// H100 all_gather ring (450 GB/s ports), both in calibrate/recorded. Platforms declare wire rates.
constexpr double NVLINK_EFF = 0.8;
// LL128 all-reduce on NVLink before Hopper: 0.48 of the rings' wire rate, not the 0.75 of NCCL's
// model (0.8 of the wire x LL128's payload share), which left the recorded A100 logs' 2-16 MiB
// all-reduces up to 30% fast. The LL128 lines `tpsim fit --platform` draws from the recorded one-node
// A100 all_reduce logs reach 0.450 (8x A100-80GB) and 0.502 (8x A100-40GB); with the DGX H100 log's
// 0.478 their median was 0.48 (derived). From Hopper an LL128 ring all-reduce runs at NCCL's share
// (session 25): the DGX H100 log's 0.478 was a line squeezed between its LL (to 2 MiB) and NVLS
// sizes, which its 4-16 MiB do not follow (4 -> 16 MiB: 316 GB/s of bus bandwidth, 0.70 of the wire;
// NCCL runs a ring there: Together's ring-forced and default H100 sweeps equal it within 3% up to
// 16 MiB). Checked, not fitted: the DGX H100 log's 8 and 16 MiB 23.6% and 7.2% slow -> 1.3% and 3.1%
// (uncalibrated median 7.2% -> 5.6%), the held-out ring-forced H100 sweep (whose own fit reads 0.78)
// 4-64 MiB 30-64% -> 10-55% slow. All-gather and reduce-scatter LL128 rings reach NCCL's share (0.756,
// 0.778 in the recorded H100 ring logs) and keep it. Checked, not fitted: the held-out 8x V100
// NVLink-mesh log fits 0.337 (its median error 21.7 -> 16.7%). Across nodes (tree/LL128 where NCCL
// enables it) the chain within each node keeps 0.48 of a GPU's port, Hopper too (ll128_chain_bus_Bps):
// checked, not fitted, on the recorded 2x HGX H100 log, whose 2-4 MiB ran tree/Simple at 92 us, 19-34%
// slow, and now run tree/LL128 10-13% fast (its median stays 10.3%).
constexpr double LL128_ALL_REDUCE_EFF = 0.48;
// Serial launches of one thread driving several GPUs (derived, not published): the recorded
// -g 8 logs' small-size floors above the default latency of one process per GPU, per extra GPU:
// A100 NCCL 2.19 all_reduce (35.5 - 15.2) / 7 = 2.9 us, OCI A100 all_reduce (32.0 - 15.2) / 7
// = 2.4 us, H100 all_gather ring (NCCL 2.26) (34.7 - 11.0) / 7 = 3.4 us; their median.
// NCCL before 2.9 launched them as one group (nccl_group_launch): none. Checked, not fitted: the
// held-out 4x V100 PCIe -g 4 logs floor at 13.4 us (NCCL 2.8.3) and 16.4 (2.4.2) against
// 6.8 + 6 x 1.0 = 12.8 as a group and 21.5 with 3 serial launches (their medians 23.7% -> 11.4%,
// 8.4% -> 9.1%); a 2x RTX 2080 Ti NVLink -g 2 run on 2.6.4 (NVIDIA/nccl#340) floors at 7.2 us.
// Against it: an 8x TITAN Xp -g 8 run the thread puts on 2.4.7 (tensorflow/tensorflow#30887, PCIe,
// topology not given) floors at 42.9 us, as serial launches would have it (41.1 against 20.8). A
// group of GPUs without cooperative multi-device launch falls back to launching one after the
// other (enqueue.cc); whether these did is not known. Runs: tests/data/measured/launch_mode/.
constexpr double SERIAL_LAUNCH_S = 2.9 * US;

// NVLS-tree: network bytes per byte of S a node's NICs carry each way, over TREE_NET_EFF (1 on 2
// nodes, 2 beyond: NCCL's double binary tree).
double nvls_tree_net_share(int nodes) { return (nodes <= 2 ? 1.0 : 2.0) / TREE_NET_EFF; }

const double* hop_table(PathClass c, bool staged, Algorithm a, bool pairwise) {
  if (c == PathClass::NET) return a == Algorithm::tree ? HOP_LAT_NET_TREE : HOP_LAT_NET;
  if (staged) return c == PathClass::SYS ? HOP_LAT_SYS : HOP_LAT_SHM;
  if (a == Algorithm::tree) return c == PathClass::NVL ? HOP_LAT_NVL_TREE : HOP_LAT_PCIE_TREE;
  if (c == PathClass::NVL) return pairwise ? HOP_LAT_NVL_PAIRWISE : HOP_LAT_NVL;
  return HOP_LAT_PCIE;
}

}  // namespace

NetTransport net_transport_of(std::string_view name) {
  return name == "tcp" ? NetTransport::tcp : name == "efa" ? NetTransport::efa : name == "cxi" ? NetTransport::cxi : NetTransport::rdma;
}

int latency_steps(Algorithm a, CollectiveOp op, int n) {
  // An all-to-all's sends to every peer are in flight together (NCCL groups them): one step.
  if (is_pairwise(op)) return 1;
  if (is_nvls(a)) return op == CollectiveOp::all_reduce ? 2 : 1;  // into the switch, and back
  if (a == Algorithm::tree) return 2 * int(std::ceil(std::log2(double(n))));
  return op == CollectiveOp::all_reduce ? 2 * (n - 1) : n - 1;
}

double efa_flush_s() { return EFA_NET_STEP; }

namespace {
// EFA's own cost per network step: its latency, and with Simple the completion overhead and, on GPUs
// before Hopper, the flush of what was received.
double efa_step_s(Protocol p, bool gdr_flush) {
  if (p != Protocol::Simple) return EFA_NET_STEP;
  return EFA_NET_STEP + EFA_SIMPLE_COMPLETION + (gdr_flush ? efa_flush_s() : 0.0);
}
}  // namespace

double hop_latency_s(PathClass c, bool staged, Protocol p, Algorithm a, bool pairwise) {
  return hop_table(c, staged, a, pairwise)[static_cast<int>(p)];
}

double default_latency_s(Protocol p, Algorithm a, CollectiveOp op, const LatencyPath& path) {
  const int n = path.nranks, nodes = path.nodes;
  const double base = is_nvls(a) ? NVLS_BASE_LAT : BASE_LAT[static_cast<int>(p)];
  // The transport's own cost per network step.
  const double transport = nodes <= 1                            ? 0.0
                           : path.transport == NetTransport::tcp ? TCP_NET_STEP
                           : path.transport == NetTransport::efa ? efa_step_s(p, path.gdr_flush)
                                                                 : 0.0;
  const double net_levels = std::floor(std::log2(double(nodes)));
  if (a == Algorithm::nvls_tree) return NVLS_TREE_BASE_LAT + 2 * net_levels * transport;  // its steps' fill: nvls_tree_pipeline_s
  const bool pairwise = is_pairwise(op);
  // Pairwise sends (send/recv, all-to-all) wait on no neighbour's step: NCCL's figures.
  const double hop = hop_latency_s(path.worst_class, path.staged, p, a, pairwise);
  if (a == Algorithm::nvls) return base;  // the switch's reduce and multicast: in NVLS_BASE_LAT and its pipeline
  if (path.worst_class != PathClass::NET || nodes <= 1) return base + latency_steps(a, op, n) * hop;
  if (pairwise) return base + latency_steps(a, op, n) * (hop + transport);
  // NCCL's tuner (tuning.cc): only the steps that cross nodes pay the network's hop; with one GPU
  // per node every step does, at the tree's network latency.
  const bool one_per_node = n == nodes;
  const double net = hop_latency_s(PathClass::NET, false, p, one_per_node ? Algorithm::tree : a) + transport;
  const double intra_hop = hop_latency_s(path.intra_class, false, p, a, pairwise);
  if (a == Algorithm::tree) return base + 2 * ((n / nodes - 1) * intra_hop + net_levels * net);
  const double overhead = (path.amd_host ? NET_OVERHEAD_AMD_S : NET_OVERHEAD_S) * (p == Protocol::Simple ? 3 : 1);
  const int steps = latency_steps(a, op, n), inter = op == CollectiveOp::all_reduce ? 2 * (nodes - 1) : nodes - 1;
  return base + (steps - inter) * std::max(intra_hop, overhead) + inter * net;
}

double nvls_generation_share(int compute_capability) {
  return compute_capability >= 100 ? NCCL_NVLS_EFFICIENCY_BLACKWELL / NCCL_NVLS_EFFICIENCY_HOPPER : 1.0;
}

double nvls_ranks_factor(CollectiveOp op, int n) {
  return op == CollectiveOp::all_reduce && n > 0 ? (1 + 1.0 / 8) / (1 + 1.0 / n) : 1.0;
}

// NVLS moves S per rank where a ring moves S x bus_factor: the same time is a higher bus bandwidth.
double default_bus_bw_Bps(Protocol p, Algorithm a, CollectiveOp op, int n, PathClass c, bool staged, double raw_Bps, int compute_capability) {
  if (a == Algorithm::nvls)
    return raw_Bps * NVLS_EFF * nvls_generation_share(compute_capability) * nvls_ranks_factor(op, n) * bus_factor(op, n);
  if (p == Protocol::LL128 && op == CollectiveOp::all_reduce && c == PathClass::NVL && !staged && !hopper_or_later(compute_capability))
    return raw_Bps * LL128_ALL_REDUCE_EFF;
  if (a == Algorithm::tree && c == PathClass::NET && p == Protocol::LL) return raw_Bps * TREE_LL_NET_EFF;  // then ll_max_bus_Bps
  if (a == Algorithm::ring && c == PathClass::NET && p == Protocol::LL) return raw_Bps * RING_LL_NET_EFF;  // then ll_max_bus_Bps
  const double link_Bps = raw_Bps * (c == PathClass::NVL && !staged ? NVLINK_EFF : c == PathClass::NET ? NET_EFF : 1.0);
  return link_Bps * payload_share(p);
}

double payload_share(Protocol p) { return PROTO_EFF[static_cast<int>(p)]; }

double ll128_chain_bus_Bps(double port_Bps) { return port_Bps * LL128_ALL_REDUCE_EFF; }

namespace {
// The share of a GPU's port the NVLS part of an NVLS-tree reaches on its generation.
// Its reduce and multicast store move S (1 + 1/k) through the ports of a node's k GPUs, as one node's NVLS
// does (nvls_ranks_factor; NVLS_TREE_EFF was drawn from 8 GPUs a node).
double nvls_tree_port_share(int compute_capability, int gpus_per_node) {
  return NVLS_TREE_EFF * nvls_generation_share(compute_capability) * nvls_ranks_factor(CollectiveOp::all_reduce, gpus_per_node);
}
}  // namespace

double nvls_tree_bus_bw_Bps(CollectiveOp op, int n, int nodes, double port_Bps, double node_net_Bps, int compute_capability) {
  return bus_factor(op, n) * std::min(port_Bps * nvls_tree_port_share(compute_capability, n / nodes), node_net_Bps / nvls_tree_net_share(nodes));
}

namespace {
// What a tree's chain inside a node moves per second: its links' rate, NVLINK_EFF of it on NVLink.
double chain_rate_Bps(PathClass intra, double chain_Bps) { return chain_Bps * (intra == PathClass::NVL ? NVLINK_EFF : 1.0); }
}  // namespace

double tree_bus_bw_Bps(Protocol p, CollectiveOp op, int n, int nodes, PathClass intra, double chain_Bps, double node_net_Bps) {
  const double chain = chain_rate_Bps(intra, chain_Bps) / 2;
  return bus_factor(op, n) * std::min(chain, node_net_Bps / nvls_tree_net_share(nodes)) * payload_share(p);
}

int nvls_channels(int compute_capability, std::string_view nccl_version, int nodes) {
  if (compute_capability < 100) return 16;  // NVLS_NCHANNELS_SM90
  return nodes > 1 || nccl_before(nccl_version, 2, 27) ? 32 : 24;  // SM100 (across nodes in every release), SM100_NVL from 2.27
}

double nvls_chunk_B(double size_B, double concurrent) {
  double chunk = 128 * 1024.0;  // nvlsChunkSize
  if (size_B < 64 * concurrent * chunk) chunk = 64 * 1024.0;
  if (size_B < 8 * concurrent * chunk) chunk = 32 * 1024.0;
  if (size_B < 2 * concurrent * chunk) chunk = 16 * 1024.0;
  return chunk;
}

double nvls_pipeline_s(const NvlsPipeline& p) {
  const double concurrent = double(nvls_channels(p.compute_capability, p.nccl_version, 1)) * p.nranks;  // channels x heads
  const double chunk = nvls_chunk_B(p.size_B, concurrent);
  const double loops = std::max(1.0, std::ceil(p.size_B / (concurrent * chunk)));
  const double loop_s = NVLS_LOOP_S + concurrent * chunk * bus_factor(p.op, p.nranks) / p.bus_bw_Bps;
  return NVLS_FILL_LOOPS * loop_s + loops * NVLS_LOOP_S;
}

bool nvls_tree_ranked_without_fill(int nodes, std::string_view nccl_version) { return nodes == 2 && !nccl_before(nccl_version, 2, 28); }

double nvls_tree_chunk_B(double size_B, double concurrent, int nodes) {
  double chunk = nodes >= 4 ? 64 * 1024.0 : 128 * 1024.0;  // min(nvlsChunkSize, nvlsTreeMaxChunkSize)
  if (size_B < 4 * concurrent * chunk && chunk > 64 * 1024.0) chunk = 64 * 1024.0;
  if (size_B < concurrent * chunk && chunk > 32 * 1024.0) chunk = 32 * 1024.0;
  return chunk;
}

double nvls_tree_pipeline_s(const NvlsTreePipeline& p) {
  const int gpus_per_node = p.nodes > 0 ? p.nranks / p.nodes : 0;
  if (p.nodes < 2 || gpus_per_node < 1 || !(p.port_Bps > 0)) return 0.0;  // no NVLS-tree: nothing to fill
  const double channels = nvls_channels(p.compute_capability, p.nccl_version, p.nodes);
  const int heads = p.nics_per_node > 0 ? std::min(p.nics_per_node, gpus_per_node) : gpus_per_node;  // one a NIC
  const double concurrent = channels * heads;
  const double loop_B = concurrent * nvls_tree_chunk_B(p.size_B, concurrent, p.nodes);
  // A loop moves at its slower stage: the NVLS part, or the node's NICs (a chunk crosses a level at their rate).
  const double nvls_part_Bps = p.port_Bps * nvls_tree_port_share(p.compute_capability, gpus_per_node);
  const double rate_Bps = p.node_net_Bps > 0 ? std::min(nvls_part_Bps, p.node_net_Bps * TREE_NET_EFF) : nvls_part_Bps;
  const double steps = p.nodes <= 2 ? 1.0 : 2 * std::floor(std::log2(double(p.nodes)));
  return steps * NVLS_TREE_FILL_LOOPS * loop_B / rate_Bps;
}

namespace {
// The hops from a leaf of NCCL's tree across nodes to its root: the chain inside a node, then
// log2(nodes) network levels (the depth tree_chunk_B's halving counts, half of a tree all-reduce's steps).
int tree_depth(int nranks, int nodes) { return nranks / nodes - 1 + int(std::floor(std::log2(double(nodes)))); }
}  // namespace

double tree_chunk_B(double size_B, int channels, int depth, bool shrinks) {
  double chunk = SIMPLE_STEP_B;
  const double per_channel = size_B / channels;
  if (!shrinks) return std::min(chunk, per_channel);
  const auto halve_while = [&](int runs, double floor_B) {
    while (std::floor(per_channel / chunk) < runs && chunk > floor_B) chunk /= 2;
  };
  halve_while(depth * 8, 128 * 1024.0);
  halve_while(depth * 4, 64 * 1024.0);
  halve_while(depth, 32 * 1024.0);
  return std::min(chunk, per_channel);
}

double tree_fill_s(const TreeFill& t) {
  const int channels = CHANNELS_PER_NIC * t.nics_per_node;
  if (channels < 1 || !(t.node_net_Bps > 0)) return 0;
  const int ranks_per_node = t.nranks / t.nodes, levels = int(std::floor(std::log2(double(t.nodes))));
  const double in_flight = channels * tree_chunk_B(t.size_B, channels, tree_depth(t.nranks, t.nodes), t.chunks_shrink);
  const double chain_Bps = chain_rate_Bps(t.intra, t.chain_Bps);
  const double chain = chain_Bps > 0 ? 2 * (ranks_per_node - 1) * in_flight / chain_Bps : 0;
  return chain + 2 * std::max(0, levels - 1) * in_flight / t.node_net_Bps;
}

// LL's added cost per step once NCCL grows its threads (ll_sync_s): the pooled median of the two
// one-process logs of the fitted set over the sizes where it shows, (measured - NCCL's latency) /
// steps, 0.33 us (derived): the DGX H100 log's ring LL at 8 KiB-256 KiB (0.16-0.37 us per step over
// its 14 steps above 15.2 us; 4 KiB, at 23.6 us, an outlier at 0.60) and the 2x HGX H100 InfiniBand
// log's tree LL at 512 B-32 KiB (0.19-0.56 over 16 steps above 25.2 us). The fitted -g 8 logs cannot
// show it (their serial launches absorb it). Their uncalibrated medians 5.6% -> 3.1% and 3.4% -> 2.5%.
// Checked, not fitted (tests/data/measured/SOURCES.md): the held-out 4-node H100 InfiniBand sweep
// 10.3% -> 6.4%, the two 2x p5 EFA sweeps 15.9% -> 12.3% and 14.9% -> 13.8%, ABCI's one-process
// 8x A100 38.2% -> 31.0%, the 2x B200 32.1% -> 23.2%; ABCI's one-process 4x V100 (NCCL 2.8.4) the
// other way, 14.2% -> 15.7%. The -g N sweeps do not move (their launches absorb it).
constexpr double LL_STEP_SYNC_S = 0.33 * US;
// NCCL's smallest thread group and LL's per-thread threshold (enqueue.cc, comm.h NCCL_LL_THREAD_THRESHOLD).
constexpr double LL_MIN_THREADS = 64, LL_THREAD_THRESHOLD_B = 8;

double ll_sync_s(Algorithm a, CollectiveOp op, int nranks, int nodes, double size_B) {
  if (is_nvls(a) || is_pairwise(op)) return 0;
  const bool tree = a == Algorithm::tree && nodes > 1;
  const int steps = tree ? 2 * tree_depth(nranks, nodes) : latency_steps(a, op, nranks);
  const double full_B = LL_MIN_THREADS * LL_THREAD_THRESHOLD_B * (tree ? 1 : nranks);
  return size_B >= full_B ? steps * LL_STEP_SYNC_S : 0.0;
}

// NCCL's correction of a tree all-reduce's bandwidth at medium sizes (tuning.cc treeCorrectionFactor,
// "Trees are not perfectly sticking to the model for medium sizes"), by protocol (LL, LL128, Simple)
// and log2(S / 64 B), 64 B to 256 MiB; 1 beyond. NCCL's figures, not fitted here. Checked, not fitted:
// the recorded 2-node logs uncalibrated (2x HGX H100 10.2% -> 3.4%, GCP A3 Mega 18.6 -> 15.5, OCI
// A100 RoCE 63.7 -> 55.5) and the held-out multi-node sweeps (tests/data/measured/SOURCES.md).
double tree_correction(Protocol p, double size_B) {
  static constexpr double FACTOR[3][23] = {
      {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
      {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
  if (size_B < 64) return 1.0;
  const int log_size = int(std::floor(std::log2(std::floor(size_B / 64))));
  return log_size < 23 ? FACTOR[static_cast<int>(p)][log_size] : 1.0;
}

bool efa_forces_simple(NetTransport transport, int nodes, int compute_capability) {
  return transport == NetTransport::efa && nodes > 1 && before_hopper(compute_capability);
}

double tree_edge_bytes(double size_B, int nodes, int rings, bool network) {
  return size_B * (network ? nvls_tree_net_share(nodes) : 2.0) / rings;
}

double nvls_tree_edge_bytes(double size_B, int nodes, int gpus_per_node, bool network, int compute_capability) {
  return network ? size_B * nvls_tree_net_share(nodes) / gpus_per_node
                 : size_B / (nvls_tree_port_share(compute_capability, gpus_per_node) * (gpus_per_node - 1));
}

// NCCL caps the LL protocol's bus bandwidth (tuning.cc llMaxBws): on one node by GPU generation
// (Volta 39, Ampere 87.7, Hopper and later 141 GB/s; the DGX H100 log's LL sizes, 1-2 MiB, grow at
// ~124-141 GB/s), across nodes by host CPU and node count (Intel 39 GB/s up to 2 nodes, 20.4
// beyond; AMD 22.5 and 19.0). Before Hopper LL reaches about half of NCCL's cap (derived): the LL
// lines `tpsim fit --platform` draws from the recorded 8x A100-80GB and 8x A100-40GB logs reach 46.3
// and 37.8 GB/s, their mean 42 = 0.48 of NCCL's 87.7 (NCCL's left 512 KiB-1 MiB 16-26% fast); Volta
// takes the same share of its 39, 18.7 GB/s. Checked, not fitted: the held-out 8x V100 mesh log fits
// 21.7 (16.7% -> 14.1% median) and the 4x V100 NV2 board's LL sizes grow at ~19-25 (27.7% -> 18.2%).
constexpr double PRE_HOPPER_LL_SHARE = 42.0 / 87.7;
double ll_max_bus_Bps(int compute_capability, int nodes, bool amd_host) {
  if (nodes > 1) return (amd_host ? (nodes <= 2 ? 22.5 : 19.0) : (nodes <= 2 ? 39.0 : 20.4)) * 1e9;
  return compute_capability >= 90 ? 141e9 : PRE_HOPPER_LL_SHARE * (compute_capability >= 80 ? 87.7e9 : 39e9);
}

double serial_launch_s(int gpus_per_thread, std::string_view nccl_version) {
  return nccl_group_launch(nccl_version) ? 0.0 : std::max(0, gpus_per_thread - 1) * SERIAL_LAUNCH_S;
}

std::string class_key(PathClass c, bool staged) {
  if (staged && c != PathClass::NET) return c == PathClass::SYS ? "SYS" : "SHM";
  return path_class_name(c);
}

}  // namespace tpsim
