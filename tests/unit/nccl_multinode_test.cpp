// Collectives across nodes as NCCL's tuner costs them (src/graph/tuning.cc): only the steps that
// cross nodes pay the network's hop, a tree's chain inside each node pays the NVLink tree hop, and
// LL's bus bandwidth is capped by host CPU and node count. No engine.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "config/gpu_catalog.hpp"
#include "config/platform_file.hpp"
#include "model/collective_defaults.hpp"
#include "model/collective_model.hpp"

using namespace tpsim;

namespace {
constexpr double US = 1e-6;
const std::string ROOT = TPSIM_SOURCE_DIR;
}  // namespace

// tpsim's note on an uncalibrated all-reduce across 2 nodes (CollectiveModel::group_notes).
const std::string TWO_NODE_DECODE_NOTE =
    "across 2 nodes: 10 held-out 2-node boxes (RoCE, AWS EFA, InfiniBand, one shared NIC; tests/data/measured/SOURCES.md) "
    "ran 64 KiB-1 MiB all-reduces, a decode step's sizes, in more time than simulated (the model's times 16-32% short, "
    "each box's median over those sizes; the recorded InfiniBand pair's 6%), a lean whose cause tpsim has not found (NCCL's trees there run every channel, from 4 KiB each: enqueue.cc): "
    "read them as optimistic, or calibrate on a log of the box (tpsim fit)";

// tpsim's note on an uncalibrated all-reduce across nodes over AWS EFA (the held-out check's band table).
const std::string EFA_MID_SIZE_NOTE =
    "across nodes over AWS EFA: six held-out 2-node EFA sweeps (three p5, three p4d/p4de; tests/data/measured/SOURCES.md) "
    "ran 64 KiB-1 MiB all-reduces in more time than simulated (the model's times 16-28% short, each box's median over those "
    "sizes), 1-16 MiB 13-41% short on four of them (the p4d/p4de and the p5 on NCCL 2.22; within 3% on the two p5 that print "
    "no version, read as a current NCCL that runs NVLS-tree there), 32 MiB and up at most 25% short, most within 15%: read "
    "mid sizes over EFA as optimistic, or calibrate on a log of the cluster (tpsim fit)";

// A calibration holding one all-reduce entry fitted on `nranks` ranks over `nodes` nodes.
Calibration all_reduce_fitted_on(int nranks, int nodes) {
  Calibration cal;
  CollectiveCalibration entry;
  entry.op = CollectiveOp::all_reduce;
  entry.nranks = nranks;
  entry.nodes = nodes;
  cal.collectives.push_back(entry);
  return cal;
}

TEST_CASE("a tree across 2 nodes: base + 2 ((N / nodes - 1) x NVLink tree hop + log2(nodes) x network tree hop)") {
  // 16 ranks on 2 nodes, LL: 6.8 + 2 x (7 x 0.6 + 1 x 5.0) = 25.2 us (the 2x HGX H100 log's floor
  // is 25-34 us); Simple: 8.4 + 2 x (7 x 4.0 + 14) = 92.4 us.
  const auto tree = [](Protocol p) {
    return default_latency_s(p, Algorithm::tree, CollectiveOp::all_reduce, LatencyPath{16, PathClass::NET, false, 2, PathClass::NVL});
  };
  CHECK(tree(Protocol::LL) == doctest::Approx(25.2 * US).scale(0));
  CHECK(tree(Protocol::Simple) == doctest::Approx(92.4 * US).scale(0));
  // 32 ranks on 4 nodes: log2(4) = 2 network steps each way: 6.8 + 2 x (7 x 0.6 + 2 x 5.0) = 35.2 us.
  CHECK(default_latency_s(Protocol::LL, Algorithm::tree, CollectiveOp::all_reduce, LatencyPath{32, PathClass::NET, false, 4}) ==
        doctest::Approx(35.2 * US).scale(0));
}

TEST_CASE("a ring across 2 nodes pays the network hop on its 2 (nodes - 1) crossing steps only") {
  // 16 ranks, all-reduce: 30 steps, 2 cross. LL: 6.8 + 28 x max(0.6, 1.0 us post overhead) + 2 x 2.7
  // = 40.2 us; on an AMD host (2.0 us overhead): 6.8 + 28 x 2.0 + 5.4 = 68.2 us; Simple (overhead
  // x 3): 8.4 + 28 x max(8.8, 3.0) + 2 x 14 = 282.8 us (a Simple NVLink ring step, 8.8 us). All-gather:
  // 15 steps, 1 crossing.
  const auto ring = [](Protocol p, CollectiveOp op, bool amd) {
    return default_latency_s(p, Algorithm::ring, op, LatencyPath{16, PathClass::NET, false, 2, PathClass::NVL, amd});
  };
  CHECK(ring(Protocol::LL, CollectiveOp::all_reduce, false) == doctest::Approx(40.2 * US).scale(0));
  CHECK(ring(Protocol::LL, CollectiveOp::all_reduce, true) == doctest::Approx(68.2 * US).scale(0));
  CHECK(ring(Protocol::Simple, CollectiveOp::all_reduce, false) == doctest::Approx(282.8 * US).scale(0));
  CHECK(ring(Protocol::LL, CollectiveOp::all_gather, false) == doctest::Approx((6.8 + 14 * 1.0 + 2.7) * US).scale(0));
  // One node: every step pays the NVLink ring hop, as before: 6.8 + 14 x 0.6 = 15.2 us at 8 ranks.
  CHECK(default_latency_s(Protocol::LL, Algorithm::ring, CollectiveOp::all_reduce, LatencyPath{8, PathClass::NVL, false}) == doctest::Approx(15.2 * US).scale(0));
}

TEST_CASE("a ring across nodes runs at 0.94 of its NICs' line rate: 47 GB/s per 400 Gb/s NIC, NVIDIA's 46-48") {
  // Simple keeps all of it (payload share 1); LL a quarter of the line rate (its lines go through host
  // memory, NCCL's 1/4 before 2.21.5), 50 x 0.25 = 12.5 GB/s, where LL128 keeps 0.94 x 120/128 = 44.1 GB/s
  // (payload share); within a node NVLink keeps its own share.
  CHECK(default_bus_bw_Bps(Protocol::Simple, Algorithm::ring, CollectiveOp::all_reduce, 16, PathClass::NET, false, 50e9, 80) ==
        doctest::Approx(47e9).scale(0));
  CHECK(default_bus_bw_Bps(Protocol::LL, Algorithm::ring, CollectiveOp::all_reduce, 16, PathClass::NET, false, 50e9, 80) ==
        doctest::Approx(12.5e9).scale(0));
  CHECK(default_bus_bw_Bps(Protocol::LL128, Algorithm::ring, CollectiveOp::all_gather, 16, PathClass::NET, false, 50e9, 80) ==
        doctest::Approx(50e9 * 0.94 * 120 / 128).scale(0));
  // Within a node a ring's LL keeps its payload half: 24 x 0.5 on PCIe.
  CHECK(default_bus_bw_Bps(Protocol::LL, Algorithm::ring, CollectiveOp::all_reduce, 8, PathClass::PIX, false, 24e9, 80) ==
        doctest::Approx(12e9).scale(0));
  CHECK(default_bus_bw_Bps(Protocol::Simple, Algorithm::ring, CollectiveOp::all_reduce, 8, PathClass::PIX, false, 24e9, 80) ==
        doctest::Approx(24e9).scale(0));  // PCIe within a node: the lanes' rate, as before
}

TEST_CASE("LL's bus bandwidth cap: before Hopper 0.48 of NCCL's within a node, NCCL's by host CPU and node count across, and a tree keeps 0.92 / 3.8 of its links") {
  CHECK(ll_max_bus_Bps(90, 1, false) == doctest::Approx(141e9).scale(0));
  // Within a node before Hopper: the share the recorded A100 logs measured of NCCL's cap, 42 / 87.7,
  // on Ampere's 87.7 (42 GB/s) and Volta's 39 (18.7 GB/s).
  CHECK(ll_max_bus_Bps(80, 1, false) == doctest::Approx(42e9).scale(0));
  CHECK(ll_max_bus_Bps(70, 1, false) == doctest::Approx(39e9 * 42 / 87.7).scale(0));
  CHECK(ll_max_bus_Bps(90, 2, false) == doctest::Approx(39e9).scale(0));
  CHECK(ll_max_bus_Bps(90, 4, false) == doctest::Approx(20.4e9).scale(0));
  CHECK(ll_max_bus_Bps(80, 2, true) == doctest::Approx(22.5e9).scale(0));
  CHECK(ll_max_bus_Bps(80, 8, true) == doctest::Approx(19.0e9).scale(0));
  // On 2x DGX H100 (Intel hosts, 8 x 50 GB/s NICs per node): tree LL 400 x 0.92 / 3.8 = 96.8 GB/s,
  // capped at 39 GB/s, then NCCL's medium-size correction for LL at log2(1 MiB / 64 B) = 14: x 0.5.
  Topology topo(load_platform_file(ROOT + "/platforms/2x_dgx_h100_ib.xml"), {}, "");
  CollectiveSpec spec;
  spec.protocol = "LL";
  spec.algorithm = "tree";
  CollectiveModel model(topo, spec, nullptr);
  std::vector<int> gpus;
  for (int g = 0; g < 16; ++g) gpus.push_back(g);
  const CollectivePlan& p = model.plan(CollectiveOp::all_reduce, 1 << 20, gpus);
  CHECK(p.bus_bw_Bps == doctest::Approx(39e9 * 0.5).scale(0));
  CHECK(p.latency_s == doctest::Approx(25.2 * US).scale(0));
}

TEST_CASE("NVLS-tree across Hopper NVSwitch nodes: NVLS inside, a tree across that moves S per node each way on 2 nodes") {
  // latency = NVLS's 55 us + the network steps' chunk pipeline, which grows with the size (nvls_tree_pipeline_s).
  CHECK(default_latency_s(Protocol::Simple, Algorithm::nvls_tree, CollectiveOp::all_reduce, LatencyPath{16, PathClass::NET, false, 2}) ==
        doctest::Approx(55 * US).scale(0));
  // The pipeline: steps x 2.4 loops x channels x heads x chunk / (port x 0.56). On 2 nodes of 8 H100 (16 channels
  // x 8 heads = 128 chunks a loop) one exchange: from 4 x 128 x 128 KiB = 64 MiB on 128 KiB chunks, 2.4 x 16 MiB /
  // 252 GB/s = 160 us (the 215 us intercept of the recorded pair's 128 MiB-16 GiB); below it 64 KiB chunks, 80 us;
  // below 128 x 64 KiB = 8 MiB 32 KiB chunks, 40 us.
  const auto pipeline = [](double size_B, int nranks, int nodes) {
    return nvls_tree_pipeline_s({size_B, nranks, nodes, 450e9, 90, ""});
  };
  const double loop_128k_s = 128 * 131072 / (450e9 * 0.56);
  CHECK(pipeline(1 << 30, 16, 2) == doctest::Approx(2.4 * loop_128k_s).scale(0));
  CHECK(pipeline(64 << 20, 16, 2) == doctest::Approx(2.4 * loop_128k_s).scale(0));
  CHECK(pipeline(32 << 20, 16, 2) == doctest::Approx(2.4 * loop_128k_s / 2).scale(0));
  CHECK(pipeline(4 << 20, 16, 2) == doctest::Approx(2.4 * loop_128k_s / 4).scale(0));
  // From 4 nodes NCCL caps the chunk at 64 KiB and the tree runs 2 log2(nodes) steps, up and down: 4 x 80 us on
  // 4 nodes, 6 x 80 on 8 and on 10 (log2 rounded down), what the 8- and 10-node logs' large sizes fit.
  CHECK(pipeline(1 << 30, 32, 4) == doctest::Approx(4 * 2.4 * loop_128k_s / 2).scale(0));
  CHECK(pipeline(1 << 30, 80, 10) == doctest::Approx(6 * 2.4 * loop_128k_s / 2).scale(0));
  CHECK(nvls_tree_chunk_B(1 << 30, 128, 4) == 65536);
  CHECK(nvls_tree_chunk_B(4 << 20, 128, 4) == 32768);
  // Blackwell keeps 32 NVLS channels across nodes: 32 x 8 x 128 KiB a loop at 900 GB/s x 0.56 x 0.74 / 0.85.
  CHECK(nvls_tree_pipeline_s({1 << 30, 16, 2, 900e9, 100, ""}) ==
        doctest::Approx(2.4 * 256 * 131072 / (900e9 * 0.56 * 0.74 / 0.85)).scale(0));
  CHECK(pipeline(1 << 30, 8, 1) == 0);  // one node runs NVLS, not NVLS-tree
  // NCCL's NVLS heads are one a NIC, and a loop moves at its slower stage: 8 x 400 Gb/s NICs a node (368 GB/s
  // at 0.92) leave the NVLS part's 252 GB/s binding; one 400 Gb/s NIC a node (the held-out 2x DGX H200) runs
  // one head, 16 channels x 128 KiB a loop, at 50 x 0.92 = 46 GB/s.
  CHECK(nvls_tree_pipeline_s({1 << 30, 16, 2, 450e9, 90, "", 400e9, 8}) == doctest::Approx(2.4 * loop_128k_s).scale(0));
  CHECK(nvls_tree_pipeline_s({1 << 30, 16, 2, 450e9, 90, "", 50e9, 1}) == doctest::Approx(2.4 * 16 * 131072 / (50e9 * 0.92)).scale(0));
  CHECK(nvls_tree_pipeline_s({1 << 30, 16, 2, 0, 90, ""}) == 0);  // no NVLink port: no NVLS-tree, no fill (not a division by 0)
  // algbw = min(port x 0.56, node NICs x 0.92 / (1 on 2 nodes, 2 beyond)); busbw = algbw x 2(N-1)/N.
  CHECK(nvls_tree_bus_bw_Bps(CollectiveOp::all_reduce, 16, 2, 450e9, 400e9, 90) == doctest::Approx(450e9 * 0.56 * 30 / 16).scale(0));
  CHECK(nvls_tree_bus_bw_Bps(CollectiveOp::all_reduce, 16, 2, 450e9, 200e9, 90) == doctest::Approx(200e9 * 0.92 * 30 / 16).scale(0));
  CHECK(nvls_tree_bus_bw_Bps(CollectiveOp::all_reduce, 32, 4, 450e9, 400e9, 90) == doctest::Approx(400e9 * 0.92 / 2 * 62 / 32).scale(0));
  // Blackwell (sm_100): the NVLS part at 0.56 x NCCL's nvlsEfficiency 0.74 / 0.85 of a 900 GB/s port, 439 GB/s,
  // above 8 x 50 GB/s NICs x 0.92 = 368 GB/s on 2 nodes: the NICs still bound it; with 16 NICs the port does.
  CHECK(nvls_tree_bus_bw_Bps(CollectiveOp::all_reduce, 16, 2, 900e9, 400e9, 100) == doctest::Approx(400e9 * 0.92 * 30 / 16).scale(0));
  CHECK(nvls_tree_bus_bw_Bps(CollectiveOp::all_reduce, 16, 2, 900e9, 800e9, 100) ==
        doctest::Approx(900e9 * 0.56 * 0.74 / 0.85 * 30 / 16).scale(0));

  const double S = 1 << 30;  // 1 GiB: past the size where the tree's 92 us + S x 1.875 / 400 GB/s is cheaper
  const auto plan_on = [&](const std::string& platform, double size_B, std::string_view nccl_version = "") {
    Topology topo(load_platform_file(ROOT + "/platforms/" + platform), {}, "");
    CollectiveSpec spec;
    spec.nccl_version = std::string(nccl_version);
    CollectiveModel model(topo, spec, nullptr);
    return model.plan(CollectiveOp::all_reduce, size_B, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  };
  // 2x DGX H100, 8 x 400 Gb/s NICs per node: the NVLS part binds, 450 GB/s x 0.56 = 252 GB/s; the
  // flows standing for it (network edges S x 1/0.92 / 8, NVSwitch edges S / (0.56 x 7)) take it alone.
  const CollectivePlan ib = plan_on("2x_dgx_h100_ib.xml", S);
  CHECK(ib.algorithm == Algorithm::nvls_tree);
  CHECK(ib.time_s() == doctest::Approx(55 * US + 2.4 * loop_128k_s + S / 252e9).scale(0).epsilon(1e-6));
  // GCP A3 Mega, 8 x 200 Gb/s NICs per node: the NICs bind both trees at 200 GB/s x 0.92 = 184 GB/s,
  // so latency decides: the plain tree's 8.4 + 2 (7 x 4.0 + (14 + 49)) = 190.4 us over TCP plus its
  // chains' fill, 16 channels x 512 KiB x 2 x 7 / (0.8 x 450 GB/s x 8/7) = 286 us (tree_fill_s; a
  // GPU's port carries 7 of a ring's 8 edges in a node), against NVLS-tree's 55 + 219 + 2 x 49 = 372 us (its
  // fill at the NICs' 184 GB/s, below the NVLS part's 252: 2.4 x 16 MiB / 184 GB/s): NVLS-tree, as NCCL ran it
  // in the recorded A3 Mega log.
  const CollectivePlan a3 = plan_on("2x_gcp_a3mega_tcpxo.xml", S);
  CHECK(a3.algorithm == Algorithm::nvls_tree);
  CHECK(a3.time_s() == doctest::Approx(55 * US + 2.4 * 128 * 131072 / 184e9 + 2 * 49 * US + S / 184e9).scale(0).epsilon(1e-6));
  // 16 MiB: NVLS-tree on 64 KiB chunks, 55 + 80 us + 16 MiB x 1.875 / 472.5 GB/s = 201.5 us, beats the tree's
  // 48.5 us + 16 MiB x 1.875 / 194.4 GB/s = 210 us (the recorded pair measured 185); at 4 MiB (32 KiB chunks,
  // 55 + 40 + 16.6 = 111.6 us) the tree's 94 us is cheaper, and NCCL 2.26 (the recorded pair's) runs it there.
  CHECK(plan_on("2x_dgx_h100_ib.xml", 16 << 20).algorithm == Algorithm::nvls_tree);
  const auto plan_with = [&](std::string_view nccl_version, double size_B) { return plan_on("2x_dgx_h100_ib.xml", size_B, nccl_version); };
  CHECK(plan_with("2.26.2", 4 << 20).algorithm == Algorithm::tree);
  // From NCCL 2.28 the tuner ranks a 2-node NVLS-tree by its line alone, 55 + 16.6 = 71.6 us against the tree's
  // 94: it runs NVLS-tree, which costs its fill as well, 111.6 us (a current NCCL where the version is not given).
  const CollectivePlan nccl_2_28 = plan_with("2.28.3", 4 << 20);
  CHECK(nccl_2_28.algorithm == Algorithm::nvls_tree);
  CHECK(nccl_2_28.time_s() == doctest::Approx(55 * US + 2.4 * loop_128k_s / 4 + (4 << 20) * 1.875 / 472.5e9).scale(0).epsilon(1e-6));
  CHECK(plan_on("2x_dgx_h100_ib.xml", 4 << 20).algorithm == Algorithm::nvls_tree);
  // At 512 KiB the tree's 48.5 + 2.7 / 0.6 = 56.1 us still beats the line's 55 + 2.1 us.
  CHECK(plan_with("2.28.3", 512 << 10).algorithm == Algorithm::tree);
  CHECK(!nvls_tree_ranked_without_fill(4, "2.28.3"));  // 2 nodes only (NCCL's "2 node case of NVLSTree")
  // A100 nodes have no NVLS: the tree at every size.
  CHECK(plan_on("oci_2x_a100_40gb_roce.xml", S).algorithm == Algorithm::tree);
}

TEST_CASE("TCP between nodes: every network step also pays 49 us of socket stacks") {
  // A network hop pays 49 us more over TCP: a 2-node LL tree has 2 log2(2) = 2 of them,
  // 6.8 + 2 (7 x 0.6 + 5.0 + 49) = 123.2 us; on 4 nodes 4, 6.8 + 2 (7 x 0.6 + 2 (5.0 + 49)) = 231.2 us;
  // a ring all-reduce 2 (nodes - 1): 6.8 + 28 x 1.0 + 2 x (2.7 + 49) = 138.2 us on 2 nodes; NVLS-tree
  // 2 log2(nodes): 55 + 2 x 49 = 153 us before its chunk pipeline (nvls_tree_pipeline_s). One node has none: 15.2 us as over RDMA.
  const auto tcp = [](Algorithm a, Protocol p, int n, int nodes) {
    return default_latency_s(p, a, CollectiveOp::all_reduce, LatencyPath{n, PathClass::NET, false, nodes, PathClass::NVL, false, NetTransport::tcp});
  };
  CHECK(tcp(Algorithm::tree, Protocol::LL, 16, 2) == doctest::Approx(123.2 * US).scale(0));
  CHECK(tcp(Algorithm::tree, Protocol::LL, 32, 4) == doctest::Approx(231.2 * US).scale(0));
  CHECK(tcp(Algorithm::ring, Protocol::LL, 16, 2) == doctest::Approx(138.2 * US).scale(0));
  CHECK(tcp(Algorithm::nvls_tree, Protocol::Simple, 16, 2) == doctest::Approx(153 * US).scale(0));
  CHECK(default_latency_s(Protocol::LL, Algorithm::ring, CollectiveOp::all_reduce,
                          LatencyPath{8, PathClass::NVL, false, 1, PathClass::NVL, false, NetTransport::tcp}) == doctest::Approx(15.2 * US).scale(0));
  // The A3 Mega platform says net_transport="tcp": its 2-node LL tree floor is the RDMA one,
  // 6.8 + 2 (7 x 0.6 + 5.0) = 25.2 us, plus 2 x 49 = 123.2 us (the recorded log: 123 us).
  Topology topo(load_platform_file(ROOT + "/platforms/2x_gcp_a3mega_tcpxo.xml"), {}, "");
  CollectiveModel model(topo, CollectiveSpec{}, nullptr);
  CHECK(model.plan(CollectiveOp::all_reduce, 8, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}).time_s() ==
        doctest::Approx(123.2 * US).scale(0).epsilon(1e-3));
}

TEST_CASE("AWS EFA between nodes: every network step also pays 20 us, Simple 3 us more, and 20 more for its flush before Hopper") {
  // aws-ofi-nccl's tuner model (p5/p5e net_lat 20 us, TUNER_NET_COMP_OVERHEAD 3 us for Simple). A 2-node
  // tree: LL 6.8 + 2 (7 x 0.6 + 5.0 + 20) = 65.2 us (the held-out p5 pairs floor at 65-72 us);
  // Simple on Hopper 8.4 + 2 (7 x 4.0 + 14 + 23) = 138.4 us; on GPUs before Hopper NCCL flushes each
  // Simple receive through the NIC (ncclTopoNeedFlush), one more EFA operation per network step:
  // 8.4 + 2 (7 x 4.0 + 14 + 23 + 20) = 178.4 us (p4d, where aws-ofi-nccl sets NCCL_PROTO=simple: 161-180 us).
  const auto efa = [](Algorithm a, Protocol p, int n, int nodes) {
    LatencyPath path{n, nodes > 1 ? PathClass::NET : PathClass::NVL, false, nodes, PathClass::NVL};
    path.transport = NetTransport::efa;
    return default_latency_s(p, a, CollectiveOp::all_reduce, path);
  };
  CHECK(efa(Algorithm::tree, Protocol::LL, 16, 2) == doctest::Approx(65.2 * US).scale(0));
  CHECK(efa(Algorithm::tree, Protocol::Simple, 16, 2) == doctest::Approx(138.4 * US).scale(0));
  const auto flushed = [](Protocol p) {
    LatencyPath path{16, PathClass::NET, false, 2, PathClass::NVL};
    path.transport = NetTransport::efa, path.gdr_flush = true;
    return default_latency_s(p, Algorithm::tree, CollectiveOp::all_reduce, path);
  };
  CHECK(flushed(Protocol::Simple) == doctest::Approx(178.4 * US).scale(0));
  CHECK(flushed(Protocol::LL) == doctest::Approx(65.2 * US).scale(0));  // LL's flags need no flush
  CHECK(before_hopper(80));
  CHECK_FALSE(before_hopper(90));  // Hopper: no flush (p5)
  CHECK_FALSE(before_hopper(0));   // a GPU the table does not know is not assumed to need one
  // One node has no network step: 6.8 + 14 x 0.6 = 15.2 us, as over RDMA.
  CHECK(efa(Algorithm::ring, Protocol::LL, 8, 1) == doctest::Approx(15.2 * US).scale(0));
  // Over EFA with A100s (p4d) a protocol left to NCCL is Simple, as aws-ofi-nccl sets it, and the run
  // says so: the 8 B all-reduce is the flushed Simple tree, 178.4 us; a scenario that names a protocol is not told.
  const Topology p4d(load_platform_file(ROOT + "/tests/data/measured/nccl/platforms/2x-p4d-4efa.xml"), {}, "");
  std::vector<int> all(16);
  for (int g = 0; g < 16; ++g) all[g] = g;
  CollectiveSpec nccl_2_23;  // a version given: no note on the tree's chunk (its own test below)
  nccl_2_23.nccl_version = "2.23.4";
  const CollectiveModel p4d_model(p4d, nccl_2_23, nullptr);
  CHECK(p4d_model.group_notes(CollectiveOp::all_reduce, all) == std::vector<std::string>{
        "across nodes over AWS EFA with A100-SXM4-40GB GPUs: simulated with Simple only, as aws-ofi-nccl sets NCCL_PROTO=simple "
        "where the EFA device does not promise in-order 128-byte writes (p3dn, p4d, p4de: their logs print 'NCCL_PROTO set by "
        "environment to simple'); p5 and later keep LL and LL128",
        "across nodes over AWS EFA with A100-SXM4-40GB GPUs: each Simple network step also waits for NCCL's flush of what it "
        "received (GPUs before Hopper: paths.cc ncclTopoNeedFlush), one more EFA operation, 20 us",
        EFA_MID_SIZE_NOTE, TWO_NODE_DECODE_NOTE});
  CHECK(p4d_model.plan(CollectiveOp::all_reduce, 8, all).protocol == Protocol::Simple);
  CHECK(p4d_model.plan(CollectiveOp::all_reduce, 8, all).time_s() == doctest::Approx(178.4 * US).scale(0).epsilon(1e-3));
  CHECK(efa_forces_simple(NetTransport::efa, 2, 80));
  CHECK_FALSE(efa_forces_simple(NetTransport::efa, 2, 90));   // p5: LL and LL128 stay
  CHECK_FALSE(efa_forces_simple(NetTransport::efa, 1, 80));   // within a node no EFA
  CHECK_FALSE(efa_forces_simple(NetTransport::rdma, 2, 80));
  CollectiveSpec simple = nccl_2_23;
  simple.protocol = "Simple";
  // A scenario that names Simple is not told about the protocol; the flush it still pays, and is told.
  const auto named = CollectiveModel(p4d, simple, nullptr).group_notes(CollectiveOp::all_reduce, all);
  REQUIRE(named.size() == 3);
  CHECK(named[0].find("NCCL's flush") != std::string::npos);
  CHECK(named[1] == EFA_MID_SIZE_NOTE);
  CHECK(named[2] == TWO_NODE_DECODE_NOTE);
  // Within one node no network note (its one note is the one-process A100 lean, model_test).
  const auto one_node = CollectiveModel(p4d, CollectiveSpec{}, nullptr).group_notes(CollectiveOp::all_reduce, {0, 1, 2, 3, 4, 5, 6, 7});
  REQUIRE(one_node.size() == 1);
  CHECK(one_node[0].rfind("on A100-SXM4-40GB NVLink, one process per GPU", 0) == 0);
  // The held-out p5 platform says net_transport="efa": its 8 B all-reduce is that LL tree.
  Topology topo(load_platform_file(ROOT + "/tests/data/measured/nccl/platforms/2x-p5-efa.xml"), {}, "");
  CollectiveModel model(topo, CollectiveSpec{}, nullptr);
  CHECK(model.plan(CollectiveOp::all_reduce, 8, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}).time_s() ==
        doctest::Approx(65.2 * US).scale(0).epsilon(1e-3));
  // Hopper over EFA keeps LL and LL128 and pays no flush: its one EFA note is the held-out mid-size lean.
  const auto p5_notes = model.group_notes(CollectiveOp::all_reduce, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  CHECK(std::count(p5_notes.begin(), p5_notes.end(), EFA_MID_SIZE_NOTE) == 1);
  CHECK(std::none_of(p5_notes.begin(), p5_notes.end(), [](const std::string& n) { return n.find("NCCL's flush") != std::string::npos; }));
}

TEST_CASE("a tree across nodes moves S per node through the NICs each way on 2 nodes, 2 S per GPU within a node") {
  // algbw = min(chain x 0.8 (NVLink) / 2, node NICs x 0.92 / (1 on 2 nodes, 2 beyond)); busbw = algbw x 2(N-1)/N x payload share.
  // 2x DGX H100 (8 rail NICs of 50 GB/s): each GPU's 450 GB/s port carries 7 of the 8 rings' edges
  // within the node, chain = 450 x 8 / 7 = 514.3 GB/s, which binds: 514.3 x 0.8 / 2 = 205.7 GB/s.
  CHECK(tree_bus_bw_Bps(Protocol::Simple, CollectiveOp::all_reduce, 16, 2, PathClass::NVL, 450e9 * 8 / 7, 400e9) ==
        doctest::Approx(450e9 * 8 / 7 * 0.8 / 2 * 30 / 16).scale(0));
  // One 50 GB/s NIC per node: the NIC binds, 50 x 0.92 = 46 GB/s (a ring through it: 50 / 1.875 = 26.7).
  CHECK(tree_bus_bw_Bps(Protocol::Simple, CollectiveOp::all_reduce, 16, 2, PathClass::NVL, 450e9 * 8 / 7, 50e9) ==
        doctest::Approx(50e9 * 0.92 * 30 / 16).scale(0));
  // 4 nodes: a double binary tree moves 2 S per node each way; LL128 carries 120/128 payload.
  CHECK(tree_bus_bw_Bps(Protocol::LL128, CollectiveOp::all_reduce, 32, 4, PathClass::NVL, 450e9 * 8 / 7, 50e9) ==
        doctest::Approx(50e9 * 0.92 / 2 * 62 / 32 * 120 / 128).scale(0));
  // Its ring edges' bytes: 2 S / 8 within a node, S / (0.92 x 8) across.
  CHECK(tree_edge_bytes(8e6, 2, 8, false) == doctest::Approx(2e6).scale(0));
  CHECK(tree_edge_bytes(8e6, 2, 8, true) == doctest::Approx(1e6 / 0.92).scale(0));

  std::vector<int> gpus(16);
  for (int g = 0; g < 16; ++g) gpus[g] = g;
  // The rates come from the rings' own links: rail NICs add up (8 x 50), a NIC that 8 rings share counts once.
  const Topology rail_topo(load_platform_file(ROOT + "/platforms/2x_dgx_h100_ib.xml"), {}, "");
  const CollectiveModel rail(rail_topo, CollectiveSpec{}, nullptr);
  CHECK(rail.summary(CollectiveOp::all_reduce, gpus).node_net_Bps == doctest::Approx(400e9).scale(0));
  CHECK(rail.summary(CollectiveOp::all_reduce, gpus).chain_Bps == doctest::Approx(450e9 * 8 / 7).scale(0));
  const Topology shared_topo(load_platform_file(ROOT + "/tests/data/measured/nccl/platforms/2x-dgx-h200-1nic.xml"), {}, "");
  CollectiveSpec nccl_2_27;  // the held-out log's release: NCCL's tuner still ranked NVLS-tree with its fill's cost (nvls_tree_ranked_without_fill)
  nccl_2_27.nccl_version = "2.27.3";
  const CollectiveModel shared(shared_topo, nccl_2_27, nullptr);
  CHECK(shared.summary(CollectiveOp::all_reduce, gpus).node_net_Bps == doctest::Approx(50e9).scale(0));
  // 8 MiB through the one NIC: tree/LL128 at 46 x 120/128 GB/s algbw, x 0.9 (NCCL's medium-size correction
  // for LL128 at log2(8 MiB / 64 B) = 17), 14.0 + 2 (7 x 1.25 + 8.5) = 48.5 us of latency: 264.6 us; the
  // held-out log measured 255.7 us (ring bytes, 1.875 S through the NIC, gave 418).
  const CollectivePlan& p = shared.plan(CollectiveOp::all_reduce, 8 << 20, gpus);
  CHECK(p.algorithm == Algorithm::tree);
  CHECK(p.protocol == Protocol::LL128);
  CHECK(p.time_s() == doctest::Approx(48.5 * US + (8 << 20) / (46e9 * 120 / 128 * 0.9)).scale(0).epsilon(1e-6));
}

TEST_CASE("NCCL's medium-size correction of a tree all-reduce's bandwidth (tuning.cc treeCorrectionFactor), by log2(S / 64 B)") {
  // Below 64 B and from log2 = 23 (512 MiB) on: none.
  CHECK(tree_correction(Protocol::Simple, 63) == 1.0);
  CHECK(tree_correction(Protocol::Simple, 512.0 * (1 << 20)) == 1.0);
  // NCCL's rows: Simple 0.9 at 64 B (log 0), LL 0.4 at 256 KiB and 512 KiB (logs 12, 13), LL128 0.6 at 64 KiB
  // (log 10), Simple 0.9 at 256 MiB (log 22); a size between powers of two takes the lower one's.
  CHECK(tree_correction(Protocol::Simple, 64) == doctest::Approx(0.9).scale(0));
  CHECK(tree_correction(Protocol::LL, 256 << 10) == doctest::Approx(0.4).scale(0));
  CHECK(tree_correction(Protocol::LL, (1 << 20) - 1) == doctest::Approx(0.4).scale(0));
  CHECK(tree_correction(Protocol::LL128, 64 << 10) == doctest::Approx(0.6).scale(0));
  CHECK(tree_correction(Protocol::Simple, 256.0 * (1 << 20)) == doctest::Approx(0.9).scale(0));

  // Applied to a tree all-reduce's bus bandwidth; on 2x DGX H100, tree/Simple at 1 MiB (log 14: 0.5)
  // runs at half the bandwidth it has at 1 GiB (log 24: none), both bound by the chain within a node.
  Topology topo(load_platform_file(ROOT + "/platforms/2x_dgx_h100_ib.xml"), {}, "");
  CollectiveSpec spec;
  spec.protocol = "Simple";
  spec.algorithm = "tree";
  const CollectiveModel model(topo, spec, nullptr);
  std::vector<int> gpus(16);
  for (int g = 0; g < 16; ++g) gpus[g] = g;
  const double large = model.plan(CollectiveOp::all_reduce, 1 << 30, gpus).bus_bw_Bps;
  CHECK(model.plan(CollectiveOp::all_reduce, 1 << 20, gpus).bus_bw_Bps == doctest::Approx(large * 0.5).scale(0));
  // A ring is not corrected: the same bandwidth at both sizes.
  spec.algorithm = "ring";
  const CollectiveModel rings(topo, spec, nullptr);
  CHECK(rings.plan(CollectiveOp::all_reduce, 1 << 20, gpus).bus_bw_Bps ==
        doctest::Approx(rings.plan(CollectiveOp::all_reduce, 1 << 30, gpus).bus_bw_Bps).scale(0));
}

TEST_CASE("NVLS-tree takes the medium-size correction from Blackwell (sm_100) on x86 hosts, as NCCL does") {
  // The 2x DGX H100 platform with its GPUs made B200s: at 16 MiB (log2(16 MiB / 64 B) = 18: Simple 0.7)
  // NVLS-tree runs at 0.7 of its bandwidth on an x86 host, at all of it on an ARM host and on Hopper.
  auto nvls_tree_bw = [](const char* gpu, const char* cpu_vendor) {
    PlatformDesc platform = load_platform_file(ROOT + "/platforms/2x_dgx_h100_ib.xml");
    platform.cpu_vendor = cpu_vendor;
    for (auto& g : platform.gpus) g.spec = find_gpu(gpu), g.model = gpu;
    const Topology topo(platform, {}, "");
    CollectiveSpec spec;
    spec.algorithm = "nvls";
    const CollectiveModel model(topo, spec, nullptr);
    std::vector<int> gpus(16);
    for (int g = 0; g < 16; ++g) gpus[g] = g;
    const CollectivePlan& p = model.plan(CollectiveOp::all_reduce, 16 << 20, gpus);
    CHECK(p.algorithm == Algorithm::nvls_tree);
    return p.bus_bw_Bps;
  };
  const double arm = nvls_tree_bw("B200-SXM-180GB", "arm");
  CHECK(nvls_tree_bw("B200-SXM-180GB", "intel") == doctest::Approx(arm * 0.7).scale(0));
  CHECK(nvls_tree_bw("H100-SXM5-80GB", "intel") == doctest::Approx(nvls_tree_bw("H100-SXM5-80GB", "arm")).scale(0));
}

TEST_CASE("across more than 2 nodes, uncalibrated, a group is told how far the defaults were checked there") {
  const Topology cluster(load_platform_file(ROOT + "/platforms/16x_dgx_h100_ib.xml"), {}, "");
  CollectiveSpec spec;
  spec.nccl_version = "2.26.2";  // given: no note on the tree's chunk (the test below)
  const CollectiveModel model(cluster, spec, nullptr);
  std::vector<int> four_nodes(32), two_nodes(16);
  for (int g = 0; g < 32; ++g) four_nodes[g] = g;
  for (int g = 0; g < 16; ++g) two_nodes[g] = g;
  CHECK(model.group_notes(CollectiveOp::all_reduce, four_nodes) == std::vector<std::string>{
        "across 4 nodes: the defaults were fitted on 2-node logs; held-out 4- and 8-node H100 InfiniBand sweeps "
        "(tests/data/measured/SOURCES.md, nccl-tests#309) ran 1-16 MiB all-reduces in more time than simulated (the model's "
        "times 10-49% short), 32 MiB-8 GiB within 27% either way: read mid-size times here as optimistic, or calibrate on a "
        "log of 4 nodes (tpsim fit)"});
  // On the nodes the defaults were fitted on only the decode sizes' note (its own test below).
  CHECK(model.group_notes(CollectiveOp::all_reduce, two_nodes) == std::vector<std::string>{TWO_NODE_DECODE_NOTE});
  // A calibration fitted on as many nodes silences it.
  const Calibration cal = all_reduce_fitted_on(32, 4);
  CHECK(CollectiveModel(cluster, CollectiveSpec{}, &cal).group_notes(CollectiveOp::all_reduce, four_nodes).empty());
}

TEST_CASE("an all-reduce across nodes without an NCCL version is told which tree chunk and which NVLS-tree choice it assumes") {
  // The chunk decides the chains' fill (tree_fill_s): one 512 KiB step from NCCL 2.20, shrunk before.
  const Topology cluster(load_platform_file(ROOT + "/platforms/2x_dgx_h100_ib.xml"), {}, "");
  std::vector<int> two_nodes(16);
  for (int g = 0; g < 16; ++g) two_nodes[g] = g;
  CHECK(CollectiveModel(cluster, CollectiveSpec{}, nullptr).group_notes(CollectiveOp::all_reduce, two_nodes) ==
        std::vector<std::string>{TWO_NODE_DECODE_NOTE, "NCCL version not given: a Simple tree's chunk is one 512 KiB step a channel at every size, stored "
                                 "and forwarded whole at each hop of the chains inside the nodes, as from NCCL 2.20; before 2.20 it "
                                 "shrinks at medium sizes and waits less at each hop (--nccl-version, or a log that prints it)",
                                 "NCCL version not given: on 2 nodes NVLS-tree runs where NCCL's tuner picks it from 2.28 (by its line, "
                                 "without its chunk pipeline's fill: from about 1 MiB on 2x H100 InfiniBand), and costs the fill too; before "
                                 "2.28 where tpsim's own costs put it (there from about 16 MiB; --nccl-version, or a log that prints it)"});
  CollectiveSpec given;
  given.nccl_version = "2.19.3";
  CHECK(CollectiveModel(cluster, given, nullptr).group_notes(CollectiveOp::all_reduce, two_nodes) ==
        std::vector<std::string>{TWO_NODE_DECODE_NOTE});
  CHECK(CollectiveModel(cluster, CollectiveSpec{}, nullptr).group_notes(CollectiveOp::all_gather, two_nodes).empty());  // no tree
}

TEST_CASE("an all-reduce across 2 nodes, uncalibrated, is told that held-out boxes ran its decode sizes slower") {
  // The held-out check's band table (tests/validation/held_out_collectives.py): the median of simulated /
  // measured - 1 over 64 KiB-1 MiB is -16.6% (2x H200 Spectrum-X), -22.6 (2x DGX H200, one NIC),
  // -28.2 and -18.9 (two 2x p5), -15.8 (2x p4de), -21.2 (2x p4d, NCCL 2.23), -25.7 (2x OCI A100 RoCE):
  // 16-28% slower than simulated, every 2-node held-out box with those sizes; the recorded 2x HGX H100
  // InfiniBand log, -6%.
  const Topology cluster(load_platform_file(ROOT + "/platforms/2x_dgx_h100_ib.xml"), {}, "");
  CollectiveSpec spec;
  spec.nccl_version = "2.26.2";
  std::vector<int> two_nodes(16);
  for (int g = 0; g < 16; ++g) two_nodes[g] = g;
  CHECK(CollectiveModel(cluster, spec, nullptr).group_notes(CollectiveOp::all_reduce, two_nodes) ==
        std::vector<std::string>{TWO_NODE_DECODE_NOTE});
  CHECK(CollectiveModel(cluster, spec, nullptr).group_notes(CollectiveOp::all_reduce, {0, 1, 2, 3, 4, 5, 6, 7}).empty());
  CHECK(CollectiveModel(cluster, spec, nullptr).group_notes(CollectiveOp::all_gather, two_nodes).empty());
  // A calibration fitted across nodes (the box's own curve) silences it.
  const Calibration cal = all_reduce_fitted_on(16, 2);
  CHECK(CollectiveModel(cluster, spec, &cal).group_notes(CollectiveOp::all_reduce, two_nodes).empty());
}

TEST_CASE("a Simple tree stores and forwards one chunk per channel at each hop of its chains and interior levels") {
  // fill = min(chunk x channels, S) x (2 (ranks per node - 1) / chain rate + 2 (log2(nodes) - 1) / node NICs' rate),
  // 2 channels per NIC, a chain on NVLink at 0.8 of its links. 8 GPUs a node on 450 GB/s NVLink (360 GB/s),
  // 8 NICs of 50 GB/s (400 GB/s a node), 16 channels: 8 MiB in flight from NCCL 2.20 (one 512 KiB step each).
  const double in_flight = 512.0 * 1024 * 2 * 8, chain = 2 * 7 / 360e9;
  const auto fill = [](double size_B, int nodes, int ranks_per_node, bool shrink) {
    return tree_fill_s({size_B, nodes * ranks_per_node, nodes, 8, 400e9, 450e9, PathClass::NVL, shrink});
  };
  CHECK(fill(64.0 * 1024 * 1024, 2, 8, false) == doctest::Approx(in_flight * chain).scale(0));                    // 326 us
  CHECK(fill(64.0 * 1024 * 1024, 4, 8, false) == doctest::Approx(in_flight * (chain + 2 * 1 / 400e9)).scale(0));  // + 42 us
  CHECK(fill(64.0 * 1024 * 1024, 8, 8, false) == doctest::Approx(in_flight * (chain + 2 * 2 / 400e9)).scale(0));  // + 84 us
  CHECK(fill(1024.0 * 1024, 4, 8, false) == doctest::Approx(1024.0 * 1024 * (chain + 2 / 400e9)).scale(0));  // below a step per channel: S
  CHECK(fill(64.0 * 1024 * 1024, 4, 1, false) == doctest::Approx(in_flight * 2 / 400e9).scale(0));  // one GPU a node: no chain
  CHECK(fill(64.0 * 1024 * 1024, 2, 1, false) == 0);
  // Before 2.20 the chunk shrinks while a channel runs fewer than depth x 8 / x 4 / x 1 chunks (down to
  // 128 / 64 / 32 KiB), depth = 8 - 1 + log2(2) = 8: 4 MiB a channel gives 512 -> 256 -> 128 KiB (32 < 64),
  // 32 chunks is not fewer than 32: 128 KiB; 512 KiB a channel: 128 KiB (4 < 64), then 64 KiB (4 < 32), 8 is not < 8.
  CHECK(tree_chunk_B(64.0 * 1024 * 1024, 16, 8, true) == 128 * 1024);
  CHECK(tree_chunk_B(8.0 * 1024 * 1024, 16, 8, true) == 64 * 1024);
  CHECK(tree_chunk_B(8.0 * 1024 * 1024, 16, 8, false) == 512 * 1024);
  CHECK(tree_chunk_B(1024.0 * 1024 * 1024, 16, 8, true) == 512 * 1024);  // 128 runs of 512 KiB
  CHECK(tree_chunk_B(256.0 * 1024, 16, 8, true) == 16 * 1024);           // S / channels below 32 KiB
  CHECK(fill(8.0 * 1024 * 1024, 2, 8, true) == doctest::Approx(16 * 64 * 1024 * chain).scale(0));
  CHECK(nccl_tree_chunks_shrink("2.19.3"));
  CHECK_FALSE(nccl_tree_chunks_shrink("2.20.3"));
  CHECK_FALSE(nccl_tree_chunks_shrink(""));  // unknown: a current NCCL
  // 2x p4d (8 A100s on 300 GB/s NVSwitch ports, 4 EFA NICs of 100 Gb/s a node, 8 channels): a 4 MiB
  // all-reduce runs tree/Simple, its latency 178.4 us (EFA's flushed Simple steps) plus the chains' fill,
  // 8 x 512 KiB x 2 x 7 / (0.8 x 300 GB/s x 8/7) = 214 us, a GPU's port carrying 7 of a ring's 8 edges
  // in a node (the held-out p4d/p4de logs: 534-925 us at 4 MiB).
  const Topology p4d(load_platform_file(ROOT + "/tests/data/measured/nccl/platforms/2x-p4d-4efa.xml"), {}, "");
  std::vector<int> all(16);
  for (int g = 0; g < 16; ++g) all[g] = g;
  const CollectivePlan& plan = CollectiveModel(p4d, CollectiveSpec{}, nullptr).plan(CollectiveOp::all_reduce, 4.0 * 1024 * 1024, all);
  CHECK(plan.algorithm == Algorithm::tree);
  CHECK(plan.protocol == Protocol::Simple);
  CHECK(plan.latency_s == doctest::Approx(178.4 * US + 8 * 512.0 * 1024 * 2 * 7 / (0.8 * 300e9 * 8 / 7)).scale(0).epsilon(1e-3));
  CHECK(plan.tree_fill_s == doctest::Approx(8 * 512.0 * 1024 * 2 * 7 / (0.8 * 300e9 * 8 / 7)).scale(0).epsilon(1e-3));  // --json tree_fill_us
}

TEST_CASE("across nodes the ring is offered beside the tree: one GPU a node on 10 nodes runs a ring at large sizes") {
  // One GPU (and its 400 Gb/s NIC, 50 GB/s) a node on 10 nodes of 16x_dgx_h100_ib: beyond 2 nodes a
  // double binary tree moves 2 S through each node's NIC at 0.92 of it, algbw 50 x 0.92 / 2 = 23 GB/s;
  // the ring moves 2(N-1)/N S = 1.8 S at 0.94 of it, algbw 47 / 1.8 = 26.1 GB/s. NCCL's tuner weighs
  // the two (tuning.cc); a published 10-node sweep of one H100 a node reaches 48.9 GB/s busbw at 16 GiB.
  const Topology cluster(load_platform_file(ROOT + "/platforms/16x_dgx_h100_ib.xml"), {}, "");
  const CollectiveModel cm(cluster, CollectiveSpec{}, nullptr);
  const std::vector<int> one_a_node{0, 8, 16, 24, 32, 40, 48, 56, 64, 72};
  const CollectivePlan& big = cm.plan(CollectiveOp::all_reduce, 1ull << 34, one_a_node);
  CHECK(big.algorithm == Algorithm::ring);
  CHECK(big.protocol == Protocol::Simple);
  CHECK(big.bus_bw_Bps == doctest::Approx(0.94 * 50e9).scale(0));
  // Small sizes keep the tree: its 2 log2(10) = 6 network steps beat the ring's 18.
  CHECK(cm.plan(CollectiveOp::all_reduce, 1024, one_a_node).algorithm == Algorithm::tree);
  // A scenario that names the tree keeps it.
  CollectiveSpec tree_only;
  tree_only.algorithm = "tree";
  CHECK(CollectiveModel(cluster, tree_only, nullptr).plan(CollectiveOp::all_reduce, 1ull << 34, one_a_node).algorithm == Algorithm::tree);
}
