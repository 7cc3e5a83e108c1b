// A calibration carries to another box through ratios to the default model: the bus bandwidth
// as a fraction of the default line on the fitted group, times the target's (without that
// fraction in the file, as most cases below build: of the fitted rings' wire rate, times the target's); the latency, less serial
// launches, over the default latency of the algorithm the log ran at its rank count, times the
// default of the target's algorithm at the target's rank count. No engine.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

#include "config/calibration.hpp"
#include "config/platform_file.hpp"
#include "fit/collective_fit.hpp"
#include "model/calibration_use.hpp"
#include "model/collective_model.hpp"
#include "../scratch_dir.hpp"

using namespace tpsim;

namespace {

const std::string ROOT = TPSIM_SOURCE_DIR;

// One all_reduce entry on NVL fitted at 8 ranks on rings of `wire` B/s, one Simple line.
Calibration simple_line(double latency_s, double bus_Bps, double wire, Algorithm alg, int gpus_per_thread = 1) {
  CollectiveCalibration c;
  c.source = "fit.log";
  c.op = CollectiveOp::all_reduce;
  c.path_class = "NVL";
  c.nranks = 8;
  c.gpu = "A100-SXM4-80GB";
  c.gpus_per_thread = gpus_per_thread;
  c.wire_Bps = wire;
  ProtocolFit f{latency_s, bus_Bps, true};
  f.wire_fraction = bus_Bps / wire;
  f.algorithm = alg;
  c.protocols[2] = f;
  Calibration cal;
  cal.collectives.push_back(c);
  return cal;
}

// Eight ranks of one node over NVLink (every platform below): a Simple ring step costs 8.8 us
// there (HOP_LAT_NVL), not NCCL's 3.4.
const LatencyPath NVSWITCH_8{8, PathClass::NVL, false, 1, PathClass::NVL, false, NetTransport::rdma};

bool has_note(const CollectiveModel& m, const std::string& start) {
  const auto notes = m.calibration_notes();
  return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.rfind(start, 0) == 0; });
}

}  // namespace

namespace {

// An A100 ring line fitted at 8 ranks on wire W = 300 GB/s: Simple, 2 x the default latency
// there, bus bandwidth 0.7 W; applied to GPUs 0-3 of `platform` with a forced Simple ring.
struct A100LineOnFourGpus {
  static constexpr double W = 300e9;
  Calibration cal = simple_line(2 * default_latency_s(Protocol::Simple, Algorithm::ring, CollectiveOp::all_reduce, NVSWITCH_8),
                                0.7 * W, W, Algorithm::ring);
  Topology topo;
  CollectiveModel model;
  std::vector<int> gpus{0, 1, 2, 3};
  explicit A100LineOnFourGpus(const std::string& platform)
      : topo(load_platform_file(ROOT + "/platforms/" + platform), {}, ""), model(topo, forced_simple_ring(), &cal) {}
  // Another line on the same four GPUs.
  A100LineOnFourGpus(const std::string& platform, Calibration line)
      : cal(std::move(line)), topo(load_platform_file(ROOT + "/platforms/" + platform), {}, ""), model(topo, forced_simple_ring(), &cal) {}
  static CollectiveSpec forced_simple_ring() {
    CollectiveSpec spec;
    spec.protocol = "Simple";
    spec.algorithm = "ring";
    return spec;
  }
  const CollectivePlan& plan() { return model.plan(CollectiveOp::all_reduce, 256 << 20, gpus); }
  double raw_Bps() const { return model.summary(CollectiveOp::all_reduce, gpus).raw_Bps; }
};

// The 16 GPUs of the 2x DGX H100 InfiniBand platform (8 x 400 Gb/s NICs a node, RDMA) under `cal`,
// with Simple and `algorithm` forced.
struct TwoH100Nodes {
  Topology topo{load_platform_file(ROOT + "/platforms/2x_dgx_h100_ib.xml"), {}, ""};
  CollectiveModel model;
  std::vector<int> gpus = std::vector<int>(16);
  TwoH100Nodes(const Calibration& cal, const std::string& algorithm, const std::string& protocol = "Simple")
      : model(topo, forced(algorithm, protocol), &cal) {
    std::iota(gpus.begin(), gpus.end(), 0);
  }
  static CollectiveSpec forced(const std::string& algorithm, const std::string& protocol = "Simple") {
    CollectiveSpec spec;
    spec.protocol = protocol;
    spec.algorithm = algorithm;
    return spec;
  }
};

}  // namespace

TEST_CASE("a ring line moves to other ranks of its GPU: bandwidth by wire fraction, latency by the default's ratio") {
  // On 4 A100s of the DGX A100: latency 2 x default(Simple, ring, 4 ranks) = 2 x (8.4 + 6 x 8.8) us,
  // bus bandwidth 0.7 x the 4-GPU rings' wire.
  A100LineOnFourGpus t("dgx_a100.xml");
  const CollectivePlan& p = t.plan();
  CHECK(p.calibrated);
  CHECK(p.latency_s == doctest::Approx(2 * (8.4e-6 + 6 * 8.8e-6)).scale(0));
  CHECK(p.bus_bw_Bps == doctest::Approx(0.7 * t.raw_Bps()).scale(0));
  CHECK(has_note(t.model, "extrapolated: ring Simple line of fit.log (8 ranks, A100-SXM4-80GB): latency fitted x2.00 of the default ring all_reduce at 4 ranks"));
}

TEST_CASE("a ring line moves to another GPU model: its wire fraction carries, its latency stays the default") {
  // On 4 H100s of the DGX H100 (NVLS offered but forced off): bus bandwidth 0.7 x the H100 rings'
  // wire; latency default(Simple, ring, 4) = 8.4 + 6 x 8.8 us, since a latency is the GPU's and
  // its stack's (leave-one-box-out: H100 -> A100 8.8% -> 13.3%).
  A100LineOnFourGpus t("dgx_h100.xml");
  const CollectivePlan& p = t.plan();
  CHECK(p.calibrated);
  CHECK(p.latency_s == doctest::Approx(8.4e-6 + 6 * 8.8e-6).scale(0));
  CHECK(p.bus_bw_Bps == doctest::Approx(0.7 * t.raw_Bps()).scale(0));
  CHECK(has_note(t.model, "extrapolated: ring Simple line of fit.log (8 ranks, A100-SXM4-80GB): latency default (fitted on A100-SXM4-80GB, not H100-SXM5-80GB"));
}

TEST_CASE("a latency fitted through NVSwitch stays there: on a board of direct NVLink the default runs, and the run says so") {
  // The same four H100s two ways: GPUs 0-3 of the DGX H100 (every edge through NVSwitch ports,
  // nvlink_fabric "switch") and node 0 of the 2x HGX4 board (every pair NV6, "direct"). A Simple
  // ring line fitted on the NVSwitch slice at 2 x the default latency (nvlink_fabric: switch): on the
  // slice it carries (2 x (8.4 + 6 x 8.8) us); on the board the default latency runs, the uncalibrated one.
  const double latency = 2 * (8.4e-6 + 6 * 8.8e-6);
  Calibration cal = simple_line(latency, 0.7 * 450e9, 450e9, Algorithm::ring);
  CollectiveCalibration& e = cal.collectives[0];
  e.nranks = 4, e.gpu = "H100-SXM5-80GB", e.nvlink_fabric = "switch";
  A100LineOnFourGpus slice("dgx_h100.xml", cal), board("2x_hgx4_h100_ib200.xml", cal);
  CHECK(slice.model.summary(CollectiveOp::all_reduce, slice.gpus).nvlink_fabric == "switch");
  CHECK(board.model.summary(CollectiveOp::all_reduce, board.gpus).nvlink_fabric == "direct");
  CHECK(slice.plan().latency_s == doctest::Approx(latency).scale(0));
  const CollectiveModel uncalibrated(board.topo, A100LineOnFourGpus::forced_simple_ring(), nullptr);
  CHECK(board.plan().latency_s == doctest::Approx(uncalibrated.plan(CollectiveOp::all_reduce, 256 << 20, board.gpus).latency_s).scale(0));
  CHECK(has_note(board.model, "extrapolated: ring Simple line of fit.log (4 ranks, H100-SXM5-80GB): latency default (fitted over NVLink "
                              "switch, the target's is direct: a latency is its links' too)"));
  // Nor does a group without NVLink edges within a node have a fabric: two PCIe GPUs.
  const Topology pcie(load_platform_file(ROOT + "/platforms/2gpu_pcie.xml"), {}, "");
  CHECK(CollectiveModel(pcie, {}, nullptr).summary(CollectiveOp::all_reduce, {0, 1}).nvlink_fabric.empty());
}

TEST_CASE("a line whose fitted latency the run does not take keeps its time at the largest size it measured") {
  // The A100 line above (latency L = 2 x default(Simple, ring, 8) = 2 x (8.4 + 14 x 8.8) = 263.2 us,
  // 0.7 x 300 GB/s), measured up to 256 MiB: there it takes L + S_bus / B = 263.2 us + 469.8 MB /
  // 210 GB/s. On H100 the latency is the default (another GPU's), and with the default in place of
  // L the bandwidth that keeps that time is S_bus / (L + S_bus / B - default(8)) of the wire, default(8)
  // = 131.6 us: 469.8 MB / 2368.6 us = 198.3 GB/s, 0.661 of 300 GB/s, carried to the H100 rings' wire.
  A100LineOnFourGpus t("dgx_h100.xml");
  t.cal.collectives[0].max_size_B = 256 << 20;
  const double bus_B = (256 << 20) * 1.75, L = 2 * (8.4e-6 + 14 * 8.8e-6), L_default = 8.4e-6 + 14 * 8.8e-6;
  const double fraction = bus_B / (L + bus_B / (0.7 * 300e9) - L_default) / 300e9;  // 0.661, as the note prints
  const CollectivePlan& p = t.plan();
  CHECK(p.latency_s == doctest::Approx(8.4e-6 + 6 * 8.8e-6).scale(0));
  CHECK(p.bus_bw_Bps == doctest::Approx(fraction * t.raw_Bps()).scale(0));
  CHECK(has_note(t.model, "extrapolated: ring Simple line of fit.log (8 ranks, A100-SXM4-80GB): latency default (fitted on "
                          "A100-SXM4-80GB, not H100-SXM5-80GB: a latency is the GPU's and its stack's), bus bandwidth 0.661 of the "
                          "wire rate"));
}

TEST_CASE("an 8-rank latency moved to 2 ranks keeps its ratio, not a negative sum of hops") {
  // Before: L_fit + (steps(2) - steps(8)) x hop could fall to ~0 (0.2 ns at 8 B). Now
  // L = L_fit / default(ring, 8) x default(direct, 2) = 1.5 x (8.4 + 2 x 8.8) us.
  const double fit_default = default_latency_s(Protocol::Simple, Algorithm::ring, CollectiveOp::all_reduce, NVSWITCH_8);
  const Calibration cal = simple_line(1.5 * fit_default, 200e9, 300e9, Algorithm::ring);
  Topology topo(load_platform_file(ROOT + "/platforms/dgx_a100.xml"), {}, "");
  CollectiveSpec spec;
  spec.protocol = "Simple";
  CollectiveModel model(topo, spec, &cal);
  const CollectivePlan& p = model.plan(CollectiveOp::all_reduce, 8, {0, 1});
  CHECK(p.algorithm == Algorithm::direct);
  CHECK(p.latency_s == doctest::Approx(1.5 * (8.4e-6 + 2 * 8.8e-6)).scale(0));
}

TEST_CASE("a fit without wire rates (no --platform) moves its latency to 2 ranks by the same ratio") {
  // A fit without a wire rate (calibrate/fitted/h100.yaml until session 35). Before: its 8-rank latency was
  // moved by hops, L_fit + (steps(direct, 2) - steps(ring, 8)) x hop, and a low intercept fell
  // below NCCL's base latency. Now, as with a wire rate: L = L_fit / default(ring, 8) x
  // default(direct, 2) = 1.5 x (8.4 + 2 x 8.8) us; the bandwidth stays absolute (200 GB/s).
  const double fit_default = default_latency_s(Protocol::Simple, Algorithm::ring, CollectiveOp::all_reduce, NVSWITCH_8);
  Calibration cal = simple_line(1.5 * fit_default, 200e9, 300e9, Algorithm::ring);
  cal.collectives[0].wire_Bps.reset();
  cal.collectives[0].protocols[2]->wire_fraction.reset();
  Topology topo(load_platform_file(ROOT + "/platforms/dgx_a100.xml"), {}, "");
  CollectiveSpec spec;
  spec.protocol = "Simple";
  CollectiveModel model(topo, spec, &cal);
  const CollectivePlan& p = model.plan(CollectiveOp::all_reduce, 8, {0, 1});
  CHECK(p.latency_s == doctest::Approx(1.5 * (8.4e-6 + 2 * 8.8e-6)).scale(0));
  CHECK(p.bus_bw_Bps == doctest::Approx(200e9).scale(0));
}

TEST_CASE("a line NVLS ran does not stand for a ring: the ring keeps the default, and the run says so") {
  // An H100 Simple line above its wire rate (467 > 450 GB/s) is NVLS; on DGX A100 (no NVLS) the
  // ring Simple costs are the defaults: 8.4 + 14 x 8.8 us, 0.8 x wire.
  const Calibration cal = simple_line(66.7e-6, 467e9, 450e9, Algorithm::nvls);
  Topology topo(load_platform_file(ROOT + "/platforms/dgx_a100.xml"), {}, "");
  CollectiveSpec spec;
  spec.protocol = "Simple";
  CollectiveModel model(topo, spec, &cal);
  const std::vector<int> gpus{0, 1, 2, 3, 4, 5, 6, 7};
  const GroupSummary g = model.summary(CollectiveOp::all_reduce, gpus);
  const CollectivePlan& p = model.plan(CollectiveOp::all_reduce, 1 << 30, gpus);
  CHECK_FALSE(p.calibrated);
  CHECK(p.latency_s == doctest::Approx(8.4e-6 + 14 * 8.8e-6).scale(0));
  CHECK(p.bus_bw_Bps == doctest::Approx(0.8 * g.raw_Bps).scale(0));
  CHECK(has_note(model, "default: nvls Simple line of fit.log"));
}

TEST_CASE("an NVLS line replays on the box it measured; on 4 of its GPUs the default's chunk pipeline stands, and says so") {
  // H100 NVLS fitted at 8 ranks: 66.7 us + bus bytes / 467 GB/s on 450 GB/s rings. NVLS streams in
  // loops whose chunk and count move with the size and the heads (nvls_pipeline_s): a straight line
  // through one box's sizes does not carry (the DGX H100 fit took Together's H100 sweep 1.9% -> 27.4%).
  // On 4 GPUs the default stands: 0.657 x 450 x (1 + 1/8) / (1 + 1/4) x 2(4-1)/4 = 399.1 GB/s.
  Calibration cal = simple_line(66.7e-6, 467e9, 450e9, Algorithm::nvls);
  cal.collectives[0].gpu = "H100-SXM5-80GB";
  Topology topo(load_platform_file(ROOT + "/platforms/dgx_h100.xml"), {}, "");
  CollectiveSpec spec;
  spec.algorithm = "nvls";
  CollectiveModel model(topo, spec, &cal);
  const CollectivePlan& p = model.plan(CollectiveOp::all_reduce, 1 << 30, {0, 1, 2, 3});
  CHECK(p.algorithm == Algorithm::nvls);
  CHECK_FALSE(p.calibrated);
  CHECK(p.bus_bw_Bps == doctest::Approx(0.657 * 450e9 * 0.9 * 1.5).scale(0));
  const auto notes = model.calibration_notes();
  CHECK(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.rfind("default: nvls Simple line of fit.log", 0) == 0 && n.find("an NVLS line replays on the box it measured only") != std::string::npos;
  }));
}

TEST_CASE("serial launches: a -g 8 log's latency is an engine's plus 7 x 2.9 us, and --compare adds them back") {
  // serial_launch_s(N) = (N - 1) x 2.9 us (collective_defaults.cpp, derived from the -g 8 logs).
  CHECK(serial_launch_s(1, "") == 0);
  CHECK(serial_launch_s(8, "") == doctest::Approx(7 * 2.9e-6).scale(0));
  const double fit_default = default_latency_s(Protocol::Simple, Algorithm::ring, CollectiveOp::all_reduce, NVSWITCH_8);
  const Calibration cal = simple_line(fit_default + serial_launch_s(8, ""), 200e9, 300e9, Algorithm::ring, 8);
  Topology topo(load_platform_file(ROOT + "/platforms/dgx_a100.xml"), {}, "");
  const std::vector<int> gpus{0, 1, 2, 3, 4, 5, 6, 7};
  for (int g : {1, 8}) {
    CollectiveSpec spec;
    spec.protocol = "Simple";
    spec.gpus_per_thread = g;
    CollectiveModel model(topo, spec, &cal);
    // Same box, same ranks: ratio 1, so the latency is the default plus this launch mode's serial part.
    CHECK(model.plan(CollectiveOp::all_reduce, 8, gpus).latency_s == doctest::Approx(fit_default + serial_launch_s(g, "")).scale(0));
  }
}

TEST_CASE("NCCL before 2.9 launches one thread's GPUs as one group: no serial launches, fitted or simulated") {
  // Releases as logs print them and users give them; 2.10 is after 2.9 (numbers, not text).
  CHECK(nccl_release("2.8.3") == std::array<int, 2>{2, 8});
  CHECK(nccl_release("2.26.2+cuda12.8") == std::array<int, 2>{2, 26});
  CHECK(nccl_release("2.8") == std::array<int, 2>{2, 8});
  for (const char* bad : {"", "2", "2.x", "v2.8.3", "2.8.3a", "2..3"}) CHECK_FALSE(nccl_release(bad));
  // NCCL_LAUNCH_MODE defaulted to GROUP until 2.9.6 (src/init.cc, commit a46ea105); unknown: current.
  CHECK(nccl_group_launch("2.8.4"));
  CHECK(nccl_group_launch("2.4.2"));
  CHECK_FALSE(nccl_group_launch("2.9.6"));
  CHECK_FALSE(nccl_group_launch("2.10.3"));
  CHECK_FALSE(nccl_group_launch(""));
  CHECK(serial_launch_s(8, "2.8.3") == 0);
  CHECK(serial_launch_s(8, "2.10.3") == doctest::Approx(7 * 2.9e-6).scale(0));
  // A -g 8 fit from NCCL 2.8.3 holds no serial launches: its line's latency is an engine's as it
  // stands, and a current NCCL's -g 8 adds 7 x 2.9 us to it (ratio 1: same box, same ranks).
  const double fit_default = default_latency_s(Protocol::Simple, Algorithm::ring, CollectiveOp::all_reduce, NVSWITCH_8);
  Calibration cal = simple_line(fit_default, 200e9, 300e9, Algorithm::ring, 8);
  cal.collectives[0].nccl_version = "2.8.3";
  Topology topo(load_platform_file(ROOT + "/platforms/dgx_a100.xml"), {}, "");
  const std::vector<int> gpus{0, 1, 2, 3, 4, 5, 6, 7};
  for (const char* simulated : {"2.8.3", "2.19.3"}) {
    CollectiveSpec spec;
    spec.protocol = "Simple";
    spec.gpus_per_thread = 8;
    spec.nccl_version = simulated;
    CollectiveModel model(topo, spec, &cal);
    CHECK(model.plan(CollectiveOp::all_reduce, 8, gpus).latency_s == doctest::Approx(fit_default + serial_launch_s(8, simulated)).scale(0));
  }
}

TEST_CASE("a network fit stays on the NICs it measured") {
  // A NET line fitted on rings of 100 GB/s applied to the 2x DGX H100 InfiniBand platform
  // (other NICs): default costs, and a note.
  Calibration cal = simple_line(400e-6, 20e9, 100e9, Algorithm::ring);
  cal.collectives[0].path_class = "NET";
  cal.collectives[0].nranks = 16;
  cal.collectives[0].nodes = 2;
  TwoH100Nodes box(cal, "ring");
  CHECK_FALSE(box.model.plan(CollectiveOp::all_reduce, 1 << 30, box.gpus).calibrated);
  CHECK(has_note(box.model, "default: ring Simple line of fit.log (16 ranks, A100-SXM4-80GB): a network fit is not carried to other NICs"));
}

TEST_CASE("a network fit stays on the transport it measured, whatever the NICs' rate") {
  // A NET line fitted over AWS EFA on rings of 400 GB/s a node (2x p5: 32 x 100 Gb/s) applied to
  // the 2x DGX H100 InfiniBand platform (8 x 400 Gb/s, RDMA): the same rate, another transport.
  Calibration cal = simple_line(400e-6, 300e9, 400e9, Algorithm::ring);
  CollectiveCalibration& e = cal.collectives[0];
  e.path_class = "NET", e.nranks = 16, e.nodes = 2, e.gpu = "H100-SXM5-80GB", e.net_transport = "efa";
  TwoH100Nodes box(cal, "ring");
  CHECK(box.model.summary(CollectiveOp::all_reduce, box.gpus).raw_Bps == doctest::Approx(400e9).scale(0));
  CHECK_FALSE(box.model.plan(CollectiveOp::all_reduce, 1 << 30, box.gpus).calibrated);
  CHECK(has_note(box.model, "default: ring Simple line of fit.log (16 ranks, H100-SXM5-80GB): a network fit is not carried to another "
                        "transport (fitted over efa, the target's nodes use rdma)"));
  // Nor one fitted over HPE Slingshot (cxi), though tpsim runs Slingshot with RDMA's defaults: quad-GH200
  // Slingshot fits took a 2-node H100 InfiniBand log from 11.3% to 19-20%.
  e.net_transport = "cxi";
  TwoH100Nodes ib(cal, "ring");
  CHECK_FALSE(ib.model.plan(CollectiveOp::all_reduce, 1 << 30, ib.gpus).calibrated);
  CHECK(has_note(ib.model, "default: ring Simple line of fit.log (16 ranks, H100-SXM5-80GB): a network fit is not carried to another "
                       "transport (fitted over cxi, the target's nodes use rdma)"));
}

TEST_CASE("across nodes a network LL or LL128 line stays within its GPU generation; its Simple line carries") {
  // NCCL sets LL's and LL128's rates by GPU generation (tuning.cc llMaxBws, perChMaxRingLL128Bws: Blackwell's
  // twice Hopper's), a Simple ring across nodes runs at its NICs'. A B200 (sm_100) fit on 2 nodes of the same
  // 8 x 400 Gb/s NICs and RDMA as the 2x DGX H100 (sm_90): its LL ring line keeps the H100 default, and says so;
  // its Simple ring line, 0.9 of the wire, carries: 0.9 x 400 GB/s.
  Calibration cal = simple_line(400e-6, 0.9 * 400e9, 400e9, Algorithm::ring);
  CollectiveCalibration& e = cal.collectives[0];
  e.path_class = "NET", e.nranks = 16, e.nodes = 2, e.gpu = "B200-SXM-180GB", e.net_transport = "rdma";
  e.gpu_spec = find_gpu_any_name(e.gpu);
  ProtocolFit ll{30e-6, 40e9, true};
  ll.wire_fraction = 40e9 / 400e9;
  ll.algorithm = Algorithm::ring;
  e.protocols[0] = ll;
  TwoH100Nodes ll_box(cal, "ring", "LL"), simple_box(cal, "ring");
  CHECK_FALSE(ll_box.model.plan(CollectiveOp::all_reduce, 1 << 20, ll_box.gpus).calibrated);
  CHECK(has_note(ll_box.model, "default: ring LL line of fit.log (16 ranks, B200-SXM-180GB): a network LL fit is not carried to another "
                               "GPU generation (fitted on sm_100, the target is sm_90)"));
  const CollectivePlan& simple = simple_box.model.plan(CollectiveOp::all_reduce, 1 << 30, simple_box.gpus);
  CHECK(simple.calibrated);
  CHECK(simple.bus_bw_Bps == doctest::Approx(0.9 * 400e9).scale(0));
}

TEST_CASE("a line of a log that ran under NCCL_ALGO is used for that algorithm only") {
  // A ring/Simple line of 2 DGX H100 nodes fitted under NCCL_ALGO=Ring (forced_algorithm: ring), on
  // the same 16 GPUs: a run forced to the tree takes the default, one forced to the ring the line (its
  // 300 GB/s of bus bandwidth, inside the envelope: the same box).
  Calibration cal = simple_line(400e-6, 300e9, 400e9, Algorithm::ring);
  CollectiveCalibration& e = cal.collectives[0];
  e.path_class = "NET", e.nranks = 16, e.nodes = 2, e.gpu = "H100-SXM5-80GB", e.forced_algorithm = Algorithm::ring;
  TwoH100Nodes tree(cal, "tree");
  CHECK_FALSE(tree.model.plan(CollectiveOp::all_reduce, 1 << 30, tree.gpus).calibrated);
  CHECK(has_note(tree.model, "default: ring Simple line of fit.log (16 ranks, H100-SXM5-80GB): not used for tree Simple (the log ran "
                             "under NCCL_ALGO=ring)"));
  TwoH100Nodes ring(cal, "ring");
  CHECK(ring.model.plan(CollectiveOp::all_reduce, 1 << 30, ring.gpus).bus_bw_Bps == doctest::Approx(300e9).scale(0));
}

TEST_CASE("across nodes a tree line stands for a ring only on its own box, run as NCCL chose") {
  // A tree/Simple line of the 2x DGX H100 InfiniBand box at 1.3 of its 400 GB/s of NICs (a 2-node
  // tree beats the ring's NIC bound), on the same 16 GPUs: a run that forces the ring takes the
  // default ring (no ring runs at 1.3 of its NICs), one that forces the tree takes the line.
  Calibration cal = simple_line(200e-6, 1.3 * 400e9, 400e9, Algorithm::tree);
  CollectiveCalibration& e = cal.collectives[0];
  e.path_class = "NET", e.nranks = 16, e.nodes = 2, e.gpu = "H100-SXM5-80GB";
  TwoH100Nodes ring(cal, "ring");
  CHECK_FALSE(ring.model.plan(CollectiveOp::all_reduce, 1 << 30, ring.gpus).calibrated);
  CHECK(has_note(ring.model, "default: tree Simple line of fit.log (16 ranks, H100-SXM5-80GB): not used for ring Simple (the line ran tree)"));
  TwoH100Nodes tree(cal, "tree");
  CHECK(tree.model.plan(CollectiveOp::all_reduce, 1 << 30, tree.gpus).bus_bw_Bps == doctest::Approx(1.3 * 400e9).scale(0));
}

TEST_CASE("a tree line fitted on 2 nodes moves to 4 by the default's ratio: beyond 2 nodes a tree moves 2 S through the NICs") {
  // A tree/Simple line fitted on 2 DGX H100 nodes (16 ranks) of the 16-node platform, on rings of
  // W = 8 x 50 GB/s, at 0.6 W bus bandwidth; applied to 4 of its nodes (32 ranks), the same NICs.
  // The default tree's algbw there: min(chain 450 x 8/7 x 0.8 / 2 = 205.7, NICs 400 x 0.92 / s),
  // s = 1 on 2 nodes (the chain binds: 205.7) and 2 on 4 (184 binds); as bus bandwidth x 2(N-1)/N:
  // 205.7 x 30/16 on 2 nodes, 184 x 62/32 on 4. The line carries 0.6 W times their ratio.
  const double W = 400e9;
  Calibration cal = simple_line(200e-6, 0.6 * W, W, Algorithm::tree);
  cal.collectives[0].path_class = "NET";
  cal.collectives[0].nranks = 16;
  cal.collectives[0].nodes = 2;
  cal.collectives[0].gpu = "H100-SXM5-80GB";
  Topology topo(load_platform_file(ROOT + "/platforms/16x_dgx_h100_ib.xml"), {}, "");
  CollectiveSpec spec;
  spec.protocol = "Simple";
  spec.algorithm = "tree";
  CollectiveModel model(topo, spec, &cal);
  std::vector<int> two(16), four(32);
  for (int i = 0; i < 32; ++i) four[i] = i;
  for (int i = 0; i < 16; ++i) two[i] = i;
  const double ratio = (400 * 0.92 / 2 * 62 / 32) / (450.0 * 8 / 7 * 0.8 / 2 * 30 / 16);
  CHECK(model.plan(CollectiveOp::all_reduce, 1 << 30, two).bus_bw_Bps == doctest::Approx(0.6 * W).scale(0));
  CHECK(model.plan(CollectiveOp::all_reduce, 1 << 30, four).bus_bw_Bps == doctest::Approx(0.6 * W * ratio).scale(0).epsilon(1e-3));
  CHECK(has_note(model, "extrapolated: tree Simple line of fit.log (16 ranks, H100-SXM5-80GB): latency fitted"));
}

TEST_CASE("tpsim fit marks a line NVLS when its bus bandwidth beats every ring, and which terms the curve measured") {
  // Simple at 467 GB/s on 450 GB/s rings with NVLS offered: nvls, fraction 467/450; LL at 1.6 GB/s:
  // ring. A line whose bandwidth term is never 30% of the time at a size it wins is not measured.
  fit::CollectiveFit f;
  f.op = CollectiveOp::all_reduce;
  f.nranks = 8;
  f.protocols[0] = {15e-6, 1.6e9, true};
  f.protocols[2] = {66e-6, 467e9, true};
  fit::annotate_transfer(f, 450e9, 0.8 * 450e9);  // NVLS offered: no NVLink ring passes 0.8 of the wire
  CHECK(f.protocols[2].algorithm == Algorithm::nvls);
  CHECK(*f.protocols[2].wire_fraction == doctest::Approx(467.0 / 450).scale(0));
  CHECK(f.protocols[0].algorithm == Algorithm::ring);
  fit::annotate_transfer(f, 450e9, std::nullopt);  // no NVSwitch: a ring, however fast
  CHECK(f.protocols[2].algorithm == Algorithm::ring);
  // Blackwell's NVLS stays below the wire: 827 GB/s on 900 GB/s rings is 0.92 of it, above any ring's 0.8.
  f.protocols[2] = {132e-6, 827e9, true};
  fit::annotate_transfer(f, 900e9, 0.8 * 900e9);
  CHECK(f.protocols[2].algorithm == Algorithm::nvls);
  f.protocols[2] = {132e-6, 700e9, true};  // 0.78 of the wire: a ring
  fit::annotate_transfer(f, 900e9, 0.8 * 900e9);
  CHECK(f.protocols[2].algorithm == Algorithm::ring);
  CHECK(same_gpu("NVIDIA A100-SXM4-80GB", "A100-SXM4-80GB"));
  CHECK_FALSE(same_gpu("NVIDIA A100-SXM4-40GB", "A100-SXM4-80GB"));
  CHECK(same_gpu("NVIDIA H100 80GB HBM3", "H100-SXM5-80GB"));
  CHECK_FALSE(same_gpu("NVIDIA H100 80GB HBM3", "A100-SXM4-80GB"));
}

TEST_CASE("tpsim fit relabels a piece NVLS Simple when its bus bandwidth beats every ring, unless the log forced its algorithm") {
  // Pieces labelled by rule (ring LL up to 256 MiB, ring LL128 up to 1 GiB, ring Simple beyond) at 447, 504
  // and 479 GB/s of bus bandwidth on 450 GB/s rings with NVLS offered (no ring passes 0.8 x 450 = 360):
  // each ran NVLS, which runs Simple alone, and so do the fitted points they hold. Under NCCL_ALGO=Ring
  // the log ran the ring: a piece keeps its label however fast its fitted bandwidth reads.
  fit::CollectiveFit f;
  f.op = CollectiveOp::all_reduce;
  f.nranks = 8;
  f.pieces = {{Algorithm::ring, Protocol::LL, 87e-6, 447e9, 256.0 * (1 << 20)},
              {Algorithm::ring, Protocol::LL128, 313e-6, 504e9, 1024.0 * (1 << 20)},
              {Algorithm::ring, Protocol::Simple, 171e-6, 479e9}};
  f.points = {{128.0 * (1 << 20), 0, 0, Protocol::LL, 0}};
  fit::CollectiveFit forced = f;
  forced.forced_algorithm = Algorithm::ring;
  fit::annotate_transfer(f, 450e9, 0.8 * 450e9);
  for (const fit::PieceFit& piece : f.pieces) {
    CHECK(piece.algorithm == Algorithm::nvls);
    CHECK(piece.protocol == Protocol::Simple);
  }
  CHECK(f.points[0].protocol == Protocol::Simple);
  fit::annotate_transfer(forced, 450e9, 0.8 * 450e9);
  CHECK(forced.pieces[0].algorithm == Algorithm::ring);
  CHECK(forced.pieces[0].protocol == Protocol::LL);
}

TEST_CASE("a fit on a TCP box is compared with that box's own default, which already pays TCP's network hops") {
  // The A3 Mega platform (net_transport="tcp"), 16 ranks on 2 nodes, an LL tree line fitted at
  // 1.2 x the default there: 1.2 x (6.8 + 2 (7 x 0.6 + 5.0 + 49)) us. Replayed on the same box it
  // gives 1.2 x that again, not 1.2 x default_tcp / default_rdma x default_tcp (TCP counted twice).
  Topology topo(load_platform_file(ROOT + "/platforms/2x_gcp_a3mega_tcpxo.xml"), {}, "");
  std::vector<int> gpus(16);
  for (int i = 0; i < 16; ++i) gpus[i] = i;
  const double tcp_default = (6.8 + 2 * (7 * 0.6 + 5.0 + 49)) * 1e-6;
  CollectiveCalibration c;
  c.source = "a3mega.log", c.op = CollectiveOp::all_reduce, c.path_class = "NET", c.nranks = 16, c.nodes = 2, c.gpu = "H100-SXM5-80GB";
  c.net_transport = "tcp";
  c.wire_Bps = CollectiveModel(topo, CollectiveSpec{}, nullptr).summary(CollectiveOp::all_reduce, gpus).raw_Bps;
  ProtocolFit f{1.2 * tcp_default, 30e9, true};
  f.wire_fraction = 30e9 / *c.wire_Bps;
  f.algorithm = Algorithm::tree;
  c.protocols[0] = f;
  Calibration cal;
  cal.collectives.push_back(c);
  CollectiveSpec spec;
  spec.protocol = "LL";
  CollectiveModel model(topo, spec, &cal);
  CHECK(model.plan(CollectiveOp::all_reduce, 8, gpus).latency_s == doctest::Approx(1.2 * tcp_default).scale(0).epsilon(1e-9));
  // The same line recorded on an RDMA box (net_transport: rdma) stays there: the TCP box keeps its
  // default, and the run says so.
  cal.collectives[0].net_transport = "rdma";
  CollectiveModel from_rdma(topo, spec, &cal);
  CHECK(from_rdma.plan(CollectiveOp::all_reduce, 8, gpus).latency_s == doctest::Approx(tcp_default).scale(0).epsilon(1e-9));
  CHECK(has_note(from_rdma, "default: tree LL line of a3mega.log (16 ranks, H100-SXM5-80GB): a network fit is not carried to another "
                            "transport (fitted over rdma, the target's nodes use tcp)"));
  // Not recorded (a fit without --platform): the target's transport stands for it, as its path class does.
  cal.collectives[0].net_transport.clear();
  CollectiveModel unknown(topo, spec, &cal);
  CHECK(unknown.plan(CollectiveOp::all_reduce, 8, gpus).latency_s == doctest::Approx(1.2 * tcp_default).scale(0).epsilon(1e-9));
}

TEST_CASE("an NVLink fit stays within its GPU generation: an A100 line on H100 keeps the defaults, and says so") {
  // The A100 line (sm_80) at 0.7 of the wire, 2 x the default latency; on the DGX H100 (sm_90)
  // the forced Simple ring runs the default: 8.4 + 14 x 8.8 us, 0.8 of 450 GB/s.
  Calibration cal = simple_line(2 * default_latency_s(Protocol::Simple, Algorithm::ring, CollectiveOp::all_reduce,
                                                      NVSWITCH_8),
                                0.7 * 300e9, 300e9, Algorithm::ring);
  cal.collectives[0].gpu_spec = find_gpu_any_name(cal.collectives[0].gpu);  // as load_calibration sets it
  Topology topo(load_platform_file(ROOT + "/platforms/dgx_h100.xml"), {}, "");
  CollectiveSpec spec;
  spec.protocol = "Simple";
  spec.algorithm = "ring";
  CollectiveModel model(topo, spec, &cal);
  const CollectivePlan& p = model.plan(CollectiveOp::all_reduce, 1 << 30, {0, 1, 2, 3, 4, 5, 6, 7});
  CHECK_FALSE(p.calibrated);
  CHECK(p.latency_s == doctest::Approx((8.4 + 14 * 8.8) * 1e-6).scale(0));
  CHECK(p.bus_bw_Bps == doctest::Approx(0.8 * 450e9).scale(0));
  CHECK(has_note(model, "default: ring Simple line of fit.log (8 ranks, A100-SXM4-80GB): an NVLink fit is not carried to another GPU "
                        "generation (fitted on sm_80, the target is sm_90)"));
}

TEST_CASE("rings that share a node's one NIC get its rate as their wire, so a fraction fitted on rail NICs carries") {
  // 2 nodes x 8 GPUs, 8 rail rings (one per GPU of a node), each crossing the nodes once each way.
  // Rail-optimised (platforms/2x_dgx_h100_ib.xml, a 400 Gb/s NIC per GPU): each NIC carries one ring,
  // wire = 8 rings x 50 GB/s = 400 GB/s. One shared NIC per node (the held-out DGX H200 pair):
  // the 8 rings cross it, each gets 50 / 8 GB/s, wire = 8 x 50 / 8 = 50 GB/s.
  std::vector<int> gpus(16);
  for (int g = 0; g < 16; ++g) gpus[g] = g;
  const auto wire = [&](const std::string& platform) {
    Topology topo(load_platform_file(ROOT + "/" + platform), {}, "");
    return CollectiveModel(topo, CollectiveSpec{}, nullptr).summary(CollectiveOp::all_reduce, gpus).raw_Bps;
  };
  CHECK(wire("platforms/2x_dgx_h100_ib.xml") == doctest::Approx(400e9).scale(0));
  CHECK(wire("tests/data/measured/nccl/platforms/2x-dgx-h200-1nic.xml") == doctest::Approx(50e9).scale(0));
}

TEST_CASE("NCCL's LL128 across nodes: NVLink within the nodes, RDMA, and NICs the GPUs reach without the CPU") {
  // tuning.cc enables LL128 when the graph within a node is NVLink (typeIntra <= NVB) and each GPU's
  // NIC is at PXB or closer (typeInter; PXN on Hopper and later, whose NVLink peers reach any NIC).
  std::vector<int> gpus(16);
  for (int g = 0; g < 16; ++g) gpus[g] = g;
  const auto summary = [&](const std::string& path) {
    Topology topo(load_platform_file(path), {}, "");
    return CollectiveModel(topo, CollectiveSpec{}, nullptr).summary(CollectiveOp::all_reduce, gpus);
  };
  // 2 DGX H100 over InfiniBand, a NIC per GPU: enabled; its LL128 all-reduce then runs the chain
  // within each node at 0.48 of a GPU's 450 GB/s NVLink port at most: 216 GB/s of bus bandwidth.
  const GroupSummary ib = summary(ROOT + "/platforms/2x_dgx_h100_ib.xml");
  CHECK(ib.ll128_enabled);
  CHECK(ll128_chain_bus_Bps(ib.port_Bps) == doctest::Approx(0.48 * 450e9).scale(0));
  // GPUDirect-TCPXO (net_transport tcp): not RDMA, not enabled.
  CHECK_FALSE(summary(ROOT + "/platforms/2x_gcp_a3mega_tcpxo.xml").ll128_enabled);
  // 2 OCI A100 nodes, each GPU's NIC below its PCIe lane: enabled. The same nodes with every NIC
  // reached through the host bridge (PHB) on Ampere, which has no PXN: not enabled.
  const std::string oci = ROOT + "/platforms/oci_2x_a100_40gb_roce.xml";
  CHECK(summary(oci).ll128_enabled);
  std::ifstream in(oci);
  std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::size_t at = 0; (at = xml.find("<link_ctn id=\"nic", at)) != std::string::npos; at += 40) xml.insert(at, "<link_ctn id=\"hb0\"/>");
  const std::string phb = (tpsim::test::scratch_dir() / "oci_nic_behind_cpu.xml").string();
  std::ofstream(phb) << xml;
  CHECK_FALSE(summary(phb).ll128_enabled);
}

TEST_CASE("on the box it measured, run as it ran, a line replays whole: a bandwidth the curve did not measure still ends its protocol") {
  // An 8x A100 log whose LL ran only at 8-32 B: LL 18.8 us at 0.0375 GB/s (its bandwidth term never 30% of
  // a time there: not measured), LL128 26.5 us at 0.41 of the wire. On the DGX A100 it measured, one process
  // per GPU as it ran, at 1 KiB: LL 18.8 + 1.75 KiB / 0.0375 GB/s = 66.6 us, so LL128 runs, 26.5 us + its
  // bytes, as the log did; the default LL bandwidth would have LL win (18.8 + 1.8 KB / 42 GB/s).
  Topology topo(load_platform_file(ROOT + "/platforms/dgx_a100.xml"), {}, "");
  const std::vector<int> gpus{0, 1, 2, 3, 4, 5, 6, 7};
  const double wire = CollectiveModel(topo, {}, nullptr).summary(CollectiveOp::all_reduce, gpus).raw_Bps;
  Calibration cal = simple_line(200e-6, 0.8 * wire, wire, Algorithm::ring);
  CollectiveCalibration& c = cal.collectives[0];
  c.gpu_spec = find_gpu_any_name(c.gpu);
  ProtocolFit ll{18.8e-6, 0.0375e9, true};
  ll.wire_fraction = 0.0375e9 / wire;
  ll.bandwidth_measured = false;
  ProtocolFit ll128{26.5e-6, 0.41 * wire, true};
  ll128.wire_fraction = 0.41;
  c.protocols[0] = ll;
  c.protocols[1] = ll128;
  const double S = 1024, bus_B = S * 1.75;
  CollectiveModel own(topo, {}, &cal);
  const CollectivePlan& p = own.plan(CollectiveOp::all_reduce, S, gpus);
  CHECK(p.protocol == Protocol::LL128);
  CHECK(p.latency_s + bus_B / p.bus_bw_Bps == doctest::Approx(26.5e-6 + bus_B / (0.41 * wire)).scale(0));
  // Run with -g 8, as the log did not: another launch, so the box's unmeasured term gives way to the default.
  CollectiveSpec g8;
  g8.gpus_per_thread = 8;
  CollectiveModel other(topo, g8, &cal);
  const CollectivePlan& q = other.plan(CollectiveOp::all_reduce, S, gpus);
  CHECK(q.protocol == Protocol::LL);
  CHECK(q.bus_bw_Bps == doctest::Approx(42e9).scale(0));  // the default: Ampere's LL cap, 42 GB/s
  CHECK(has_note(other, "applied: ring LL line of fit.log (8 ranks, A100-SXM4-80GB): latency fitted x"));
}

TEST_CASE("a line carries as its fraction of the default model's line: an NVLS tree fitted on B200 nodes, run on H100 nodes") {
  // Both boxes: 2 nodes of 8 GPUs, 8 x 50 GB/s NICs a node (W = 400 GB/s). The default NVLS tree's
  // bus bandwidth is 30/16 x min(port x 0.56 x generation share, NICs 400 x 0.92):
  //   B200 (900 GB/s ports, share 0.74/0.85): min(438.8, 368) = 368 -> 690 GB/s, the NICs bind;
  //   H100 (450 GB/s ports): min(252, 368) = 252 -> 472.5 GB/s, the NVLink ports bind.
  // A B200 line at 0.94 of its default (648.6 GB/s, 1.62 W) runs at 0.94 x 472.5 on H100, not 1.62 W.
  const double W = 400e9, b200_default = 690e9, h100_default = 472.5e9;
  Calibration cal = simple_line(200e-6, 0.94 * b200_default, W, Algorithm::nvls_tree);
  CollectiveCalibration& e = cal.collectives[0];
  e.path_class = "NET", e.nranks = 16, e.nodes = 2, e.gpu = "B200-SXM-180GB";
  e.protocols[2]->model_fraction = 0.94;
  TwoH100Nodes box(cal, "nvls");
  CHECK(box.model.default_bus_Bps(Protocol::Simple, Algorithm::nvls_tree, CollectiveOp::all_reduce, box.gpus) ==
        doctest::Approx(h100_default).scale(0).epsilon(1e-3));
  const CollectivePlan& p = box.model.plan(CollectiveOp::all_reduce, 1 << 30, box.gpus);
  CHECK(p.algorithm == Algorithm::nvls_tree);
  CHECK(p.bus_bw_Bps == doctest::Approx(0.94 * h100_default).scale(0).epsilon(1e-3));
  CHECK(has_note(box.model, "extrapolated: nvls_tree Simple line of fit.log (16 ranks, B200-SXM-180GB): latency default (fitted on "
                        "B200-SXM-180GB, not H100-SXM5-80GB: a latency is the GPU's and its stack's), bus bandwidth 0.940 of the "
                        "default nvls_tree Simple line's 473 GB/s on the target = 444 GB/s"));
}

TEST_CASE("a model fraction with its fitted latency carries as it is, and the note names only it") {
  // An H100 NVLS-tree line fitted on 2 nodes (16 ranks), latency measured, run on 4 nodes of the
  // same GPUs and NICs (32 ranks of 16x_dgx_h100_ib.xml): the fitted latency carries, so the
  // fraction is the line's own, 0.98 x the default NVLS tree there, and the note has no second
  // fraction (0.98 x w / w, w the wire fraction 0.98 x 472.5 / 400, is not 0.98 in doubles: once printed
  // as a second fraction beside the first).
  Calibration cal = simple_line(200e-6, 0.98 * 472.5e9, 400e9, Algorithm::nvls_tree);
  CollectiveCalibration& e = cal.collectives[0];
  e.path_class = "NET", e.nranks = 16, e.nodes = 2, e.gpu = "H100-SXM5-80GB";
  e.protocols[2]->model_fraction = 0.98;
  Topology topo(load_platform_file(ROOT + "/platforms/16x_dgx_h100_ib.xml"), {}, "");
  CollectiveModel model(topo, TwoH100Nodes::forced("nvls"), &cal);
  std::vector<int> four(32);
  std::iota(four.begin(), four.end(), 0);
  const double there = model.default_bus_Bps(Protocol::Simple, Algorithm::nvls_tree, CollectiveOp::all_reduce, four);
  CHECK(model.plan(CollectiveOp::all_reduce, 1 << 30, four).bus_bw_Bps == doctest::Approx(0.98 * there).scale(0).epsilon(1e-12));
  const auto notes = model.calibration_notes();
  const auto line = std::find_if(notes.begin(), notes.end(), [](const std::string& n) { return n.find("nvls_tree Simple line") != std::string::npos; });
  REQUIRE(line != notes.end());
  CHECK(line->find("latency fitted") != std::string::npos);
  CHECK(line->find("bus bandwidth 0.980 of the default nvls_tree Simple line's") != std::string::npos);
  CHECK(line->find("the line's") == std::string::npos);
}

TEST_CASE("a host-staged fit is not carried to P2P paths, nor a P2P fit to host-staged ones") {
  // A SYS entry that fitted a host copy (staged across sockets at 5 GB/s) on the Azure NC A100 v4
  // box, whose AMD host runs P2P across SYS with NCCL 2.17: the defaults, and a note; likewise an
  // SYS entry without copy rates (P2P) on the dual-socket Intel box where SYS pairs are staged, even
  // at the rank count, wire rate and GPU it was fitted with.
  Calibration staged = simple_line(40e-6, 5e9, 24e9, Algorithm::ring);
  staged.collectives[0].path_class = "SYS";
  staged.collectives[0].nranks = 4;
  staged.collectives[0].host_copy_Bps = 5e9;
  Topology amd(load_platform_file(ROOT + "/tests/data/measured/nccl/platforms/4xa100-pcie-80gb-nv12-pairs-azure-ncv4.xml"), {}, "",
               "2.17");
  CollectiveModel on_p2p(amd, {}, &staged);
  CHECK_FALSE(on_p2p.plan(CollectiveOp::all_reduce, 1 << 30, {0, 1, 2, 3}).calibrated);
  CHECK(has_note(on_p2p, "default: ring Simple line of fit.log (4 ranks, A100-SXM4-80GB): a host-staged fit is not carried to P2P paths"));
  Calibration p2p = simple_line(40e-6, 20e9, 24e9, Algorithm::ring);
  p2p.collectives[0].path_class = "SYS";
  p2p.collectives[0].nranks = 4;
  Topology intel(load_platform_file(ROOT + "/platforms/8xa100_nvlink_pairs_dual_socket.xml"), {}, "");
  CollectiveModel on_staged(intel, {}, &p2p);
  CHECK_FALSE(on_staged.plan(CollectiveOp::all_reduce, 1 << 30, {0, 1, 6, 7}).calibrated);
  CHECK(has_note(on_staged, "default: ring Simple line of fit.log (4 ranks, A100-SXM4-80GB): a P2P fit is not carried to host-staged paths"));
}

TEST_CASE("a calibration file reads wire_fraction and model_fraction, and refuses bad ones where they stand") {
  const std::string dir = tpsim::test::scratch_dir().string();
  auto write = [&](const std::string& name, const std::string& fractions) {
    std::ofstream(dir + "/" + name) << "collectives:\n  - source: a.log\n    op: all_reduce\n    nranks: 8\n    path_class: NVL\n"
                                       "    wire_bandwidth: 450GBps\n    protocols:\n"
                                       "      Simple: { latency: 60us, bus_bandwidth: 360GBps" << fractions << ", fitted: true }\n";
    return dir + "/" + name;
  };
  // 360 / 450 = 0.8 of the wire; 0.9 of the default line the fit compared it with.
  const Calibration ok = load_calibration(write("ok.yaml", ", wire_fraction: 0.8, model_fraction: 0.9"));
  CHECK(*ok.collectives[0].protocols[2]->wire_fraction == doctest::Approx(0.8).scale(0));
  CHECK(*ok.collectives[0].protocols[2]->model_fraction == doctest::Approx(0.9).scale(0));
  const std::string wire = write("wire.yaml", ", wire_fraction: 5");
  CHECK_THROWS_WITH(load_calibration(wire),
                    (wire + ":8:71: error: 'wire_fraction' must be in (0, 4]: the bus bandwidth over the fitted wire rate").c_str());
  const std::string zero = write("zero.yaml", ", wire_fraction: 0.8, model_fraction: 0");
  CHECK_THROWS_WITH(load_calibration(zero), (zero + ":8:92: error: 'model_fraction' must be positive: the bus bandwidth over the "
                                                    "default model's on the fitted group").c_str());
  const std::string alone = write("alone.yaml", ", model_fraction: 0.9");
  CHECK_THROWS_WITH(load_calibration(alone), (alone + ":8:72: error: 'model_fraction' needs 'wire_fraction' beside it").c_str());
}
