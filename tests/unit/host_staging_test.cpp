// Host-staged transfers (NCCL_P2P_DISABLE=1, P2P unsupported, beyond the P2P level): chunks go
// from the sending GPU into host memory and from there to the receiver, pipelined, so
//   staged rate = min(up lane, host copy, down lane [, socket copy across sockets]);
// the defaults come from published P2P-off logs (host_staging.cpp), and a fit of a P2P-off log
// on its platform sets the host copy (or the socket copy), which then carries to other boxes.
// No engine.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "config/calibration.hpp"
#include "config/platform_file.hpp"
#include "model/collective_defaults.hpp"
#include "model/collective_model.hpp"
#include "model/host_staging.hpp"
#include "topo/topo_gpu_links.hpp"
#include "topo/topo_matrix.hpp"
#include "topo/topo_platform.hpp"

using namespace tpsim;

namespace {

const std::string ROOT = TPSIM_SOURCE_DIR;

double busbw_Bps(const std::string& platform, const std::vector<int>& gpus, double size_B, const Calibration* cal = nullptr) {
  Topology topo(load_platform_file(ROOT + "/platforms/" + platform), {}, "OFF");
  CollectiveModel model(topo, CollectiveSpec{}, cal);
  return model.plan(CollectiveOp::all_reduce, size_B, gpus).busbw_Bps();
}

// A host-staged Simple line fitted on a 2-rank box within one socket: host copy `host`.
Calibration shm_fit(double bus_Bps, std::optional<double> host) {
  CollectiveCalibration c;
  c.source = "p2p-off.log";
  c.op = CollectiveOp::all_reduce;
  c.path_class = "SHM";
  c.nranks = 2;
  c.wire_Bps = 12e9;
  c.host_copy_Bps = host;
  ProtocolFit f{20e-6, bus_Bps, true};
  f.wire_fraction = bus_Bps / 12e9;
  f.algorithm = Algorithm::direct;
  c.protocols[2] = f;
  Calibration cal;
  cal.collectives.push_back(c);
  return cal;
}

}  // namespace

TEST_CASE("the staged rate is the slowest stage: lanes, host copy, and the socket copy across sockets") {
  const StagingRates r{4e9, 1.44e9};
  CHECK(staged_rate_Bps({12e9, 12e9, false}, r) == doctest::Approx(4e9).scale(0));   // min(12, 4, 12)
  CHECK(staged_rate_Bps({3e9, 24e9, false}, r) == doctest::Approx(3e9).scale(0));    // an x4 lane: min(3, 4, 24)
  CHECK(staged_rate_Bps({24e9, 24e9, true}, r) == doctest::Approx(1.44e9).scale(0)); // min(24, 4, 24, 1.44)
  // The defaults: host copy 4.00 GB/s (median of 4.00, 3.86, 5.20), socket copy 1.44 GB/s.
  CHECK(default_staging_rates().host_copy_Bps == doctest::Approx(4.00e9).scale(0));
  CHECK(default_staging_rates().socket_copy_Bps == doctest::Approx(1.44e9).scale(0));
}

TEST_CASE("a staged path's stages come from its two legs; a UPI link on the way marks the socket crossing") {
  // 8xa100_nvlink_pairs_dual_socket.xml: GPU 1 on socket 0, GPU 6 on socket 1, Gen4 lanes 24 GB/s,
  // host bridges 48 GB/s, UPI 40 GB/s (left out of the lanes).
  Topology topo(load_platform_file(ROOT + "/platforms/8xa100_nvlink_pairs_dual_socket.xml"), {}, "OFF");
  const StagedEdge across = staged_edge(topo.platform(), topo.path(1, 6));
  CHECK(across.up_Bps == doctest::Approx(24e9).scale(0));
  CHECK(across.down_Bps == doctest::Approx(24e9).scale(0));
  CHECK(across.crosses_socket);
  CHECK_FALSE(staged_edge(topo.platform(), topo.path(1, 2)).crosses_socket);
}

TEST_CASE("uncalibrated P2P-off all-reduces against the published plateaus") {
  // Measured busbw at 1 GiB (tests/data/measured/p2p_off_allreduce.csv, calibrate/recorded):
  //   2x RTX 2080 Ti PIX 4.00 GB/s -> min(12, 4.00, 12) = 4.00 (0%);
  //   A40 GPUs 1,2 (NODE) 3.86 GB/s -> min(24, 4.00, 24) = 4.00 (+3.6%);
  //   DGX A100 GPUs 4-7 5.20 GB/s -> 4.00 (-23%: the spread the median leaves);
  //   A40 GPUs 0,1,6,7 (across sockets) 1.44 GB/s -> min(24, 4.00, 24, 1.44) = 1.44 (0%).
  // Near 1 GiB the latency (~25 us against ~270 ms) is below 0.1%.
  const double S = 1073741824.0;
  CHECK(busbw_Bps("2xrtx2080ti_pix_nop2p.xml", {0, 1}, S) == doctest::Approx(4.00e9).scale(0).epsilon(0.001));
  CHECK(busbw_Bps("8xa100_nvlink_pairs_dual_socket.xml", {1, 2}, S) == doctest::Approx(4.00e9).scale(0).epsilon(0.001));
  CHECK(busbw_Bps("dgx_a100.xml", {4, 5, 6, 7}, S) == doctest::Approx(4.00e9).scale(0).epsilon(0.001));
  CHECK(busbw_Bps("8xa100_nvlink_pairs_dual_socket.xml", {0, 1, 6, 7}, S) == doctest::Approx(1.44e9).scale(0).epsilon(0.001));
}

TEST_CASE("a P2P-off fit sets the host copy when it is below the lanes, else says the lanes set the pace") {
  const StagingFit below = fit_staging({12e9, 12e9, false}, 4.02e9);
  REQUIRE(below.host_copy_Bps);
  CHECK(*below.host_copy_Bps == doctest::Approx(4.02e9).scale(0));
  CHECK(below.note == "host-staged: host copy 4.02 GB/s (the Simple line's bus bandwidth, below the PCIe legs 12 and 12 GB/s)");
  const StagingFit lanes = fit_staging({3e9, 24e9, false}, 2.99e9);  // within 1% of the 3 GB/s lane
  CHECK_FALSE(lanes.host_copy_Bps);
  CHECK(lanes.note == "host-staged: the PCIe legs 3 and 24 GB/s set the Simple line's pace (2.99 GB/s); the host copy stays at its default");
  const StagingFit across = fit_staging({24e9, 24e9, true}, 1.2e9);
  CHECK_FALSE(across.host_copy_Bps);
  REQUIRE(across.socket_copy_Bps);
  CHECK(*across.socket_copy_Bps == doctest::Approx(1.2e9).scale(0));
  // Across sockets above the default host copy (4 GB/s): the box copies at least that fast within
  // a socket too, so the measurement is both rates (the 8x RTX 4090 SYS box: 15.3 GB/s).
  const StagingFit fast = fit_staging({24e9, 24e9, true}, 15.3e9);
  REQUIRE(fast.host_copy_Bps);
  REQUIRE(fast.socket_copy_Bps);
  CHECK(*fast.host_copy_Bps == doctest::Approx(15.3e9).scale(0));
  CHECK(*fast.socket_copy_Bps == doctest::Approx(15.3e9).scale(0));
  CHECK(fast.note == "host-staged across sockets: host copy and socket copy 15.3 GB/s (the Simple line's bus bandwidth, below the "
                     "PCIe legs 24 and 24 GB/s and above the default host copy 4 GB/s, which is not this box's)");
  // Above the narrower leg (1.01 x 24 GB/s for print rounding): a staged copy crosses both legs, so
  // the log ran P2P (the Azure NC A100 v4 log read as a current NCCL: 30.8 GB/s on 24 GB/s legs).
  const StagingFit p2p = fit_staging({24e9, 24e9, true}, 30.8e9);
  CHECK_FALSE(p2p.host_copy_Bps);
  CHECK_FALSE(p2p.socket_copy_Bps);
  CHECK(p2p.note == "host-staged on this platform, but the Simple line's bus bandwidth (30.8 GB/s) is above the PCIe legs 24 and 24 "
                    "GB/s: the log's GPUs ran P2P (NCCL before 2.23 uses P2P across SYS on AMD hosts at any GPU count: give "
                    "--nccl-version, or the platform's p2p_level); no copy rate fitted");
}

TEST_CASE("a fitted host copy carries to another staged box, and across sockets with the default socket copy") {
  // Fitted: Simple at 5 GB/s on 12 GB/s lanes, host copy 5 GB/s. On 2gpu_pcie.xml (Gen4 24 GB/s):
  // min(24, 5, 24) = 5 GB/s. Across sockets (GPUs 0,1,6,7 of the dual-socket box):
  // min(24, 5, 24, 1.44) = 1.44 GB/s. At 1 GiB the 20 us latency is below 0.01%.
  const double S = 1073741824.0;
  const Calibration cal = shm_fit(5e9, 5e9);
  CHECK(busbw_Bps("2gpu_pcie.xml", {0, 1}, S, &cal) == doctest::Approx(5e9).scale(0).epsilon(0.001));
  CHECK(busbw_Bps("8xa100_nvlink_pairs_dual_socket.xml", {0, 1, 6, 7}, S, &cal) == doctest::Approx(1.44e9).scale(0).epsilon(0.001));
  // Without a host copy (an older file) the wire fraction applies: 5/12 of the 24 GB/s lane = 10 GB/s.
  const Calibration old = shm_fit(5e9, std::nullopt);
  CHECK(busbw_Bps("2gpu_pcie.xml", {0, 1}, S, &old) == doctest::Approx(10e9).scale(0).epsilon(0.001));
}

TEST_CASE("a calibration file reads host_copy_bandwidth and refuses a non-positive one") {
  const std::string dir = tpsim::test::scratch_dir().string();
  auto write = [&](const std::string& name, const std::string& value) {
    std::ofstream(dir + "/" + name) << "collectives:\n  - source: a.log\n    op: all_reduce\n    nranks: 2\n    path_class: SHM\n"
                                       "    host_copy_bandwidth: " << value << "\n    protocols:\n"
                                       "      Simple: { latency: 20us, bus_bandwidth: 5GBps, fitted: true }\n";
    return dir + "/" + name;
  };
  CHECK(*load_calibration(write("ok.yaml", "5GBps")).collectives[0].host_copy_Bps == doctest::Approx(5e9).scale(0));
  const std::string bad = write("bad.yaml", "0GBps");
  CHECK_THROWS_WITH(load_calibration(bad), (bad + ":6:26: error: 'host_copy_bandwidth' must be positive").c_str());
}

TEST_CASE("a staged run says its pace and where the copy rates come from") {
  // min(12, 4.00, 12) = 4 GB/s; across sockets min(24, 4.00, 24, 1.44) = 1.44 GB/s.
  CHECK(staging_note({12e9, 12e9, false}, default_staging_rates()) ==
        "host-staged (P2P off or not allowed): pace min(PCIe 12, host copy 4, PCIe 12) = 4 GB/s, default copy rates from "
        "published P2P-off runs, whose plateaus span 1.0-27 GB/s from box to box (tests/data/measured/p2p_off_plateaus.csv; "
        "a calibration fitted on this box's P2P-off log replaces them: see its lines)");
  CHECK(staging_note({24e9, 24e9, true}, default_staging_rates())
            .rfind("host-staged (P2P off or not allowed): pace min(PCIe 24, host copy 4, PCIe 24, socket copy 1.44) = 1.44 GB/s", 0) == 0);
  StagingRates given = default_staging_rates();
  given.host_copy_Bps = 8e9, given.host_copy_given = true;  // min(12, 8, 12) = 8 GB/s
  CHECK(staging_note({12e9, 12e9, false}, given) ==
        "host-staged (P2P off or not allowed): pace min(PCIe 12, host copy 8, PCIe 12) = 8 GB/s, copy rates set by the scenario "
        "(collectives.host_copy_bandwidth)");
  CHECK(staging_note({24e9, 24e9, true}, given).ends_with("host copy set by the scenario, socket copy the default"));
}

TEST_CASE("the scenario's copy rates replace the defaults and a calibration's") {
  // 2gpu_pcie.xml, Gen4 lanes 24 GB/s: host copy 8 GB/s given -> min(24, 8, 24) = 8 GB/s at 1 GiB,
  // over the calibration's 5 GB/s (the scenario says what the user knows of the box).
  const double S = 1073741824.0;
  const Calibration cal = shm_fit(5e9, 5e9);
  Topology topo(load_platform_file(ROOT + "/platforms/2gpu_pcie.xml"), {}, "OFF");
  CollectiveSpec spec;
  spec.host_copy_Bps = 8e9;
  for (const Calibration* c : {static_cast<const Calibration*>(nullptr), &cal}) {
    CollectiveModel model(topo, spec, c);
    CHECK(model.plan(CollectiveOp::all_reduce, S, {0, 1}).busbw_Bps() == doctest::Approx(8e9).scale(0).epsilon(0.001));
    CHECK(model.summary(CollectiveOp::all_reduce, {0, 1}).staging.host_copy_given);
  }
}

TEST_CASE("a staged LL step costs NCCL's PCIe LL step: the recorded -g 2 floor less its serial launch") {
  // 2x RTX 2080 Ti, P2P not supported, -g 2 (calibrate/recorded/2x-rtx2080ti-pcie-pix-no-p2p.log):
  // floor 11.8 us = base 6.8 + 2 steps x 1.0 + 1 serial launch x 2.9 (it had been read as 6.8 + 2 x 2.5
  // with the launch left in the steps). Across sockets (SYS) the LL step is the same 1.0 us: 8 ranks,
  // 6.8 + 14 x 1.0 = 20.8 us, plus 7 x 2.9 for -g 8 = 41.1 us against 38.8 measured on the held-out
  // 8x RTX 4090 (tests/data/measured/nccl/8x-rtx4090-sys-amd-no-p2p.log).
  constexpr double US = 1e-6;
  const auto staged = [](int n, PathClass c) {
    return default_latency_s(Protocol::LL, Algorithm::ring, CollectiveOp::all_reduce, LatencyPath{n, c, true});
  };
  CHECK(staged(2, PathClass::PIX) + serial_launch_s(2, "") == doctest::Approx(11.7 * US).scale(0));
  CHECK(staged(8, PathClass::SYS) == doctest::Approx(20.8 * US).scale(0));
  CHECK(staged(8, PathClass::SYS) + serial_launch_s(8, "") == doctest::Approx(41.1 * US).scale(0));
}

TEST_CASE("a staged pair across sockets whose GPUs each have a NIC behind their switch: the note says NCCL may use the NICs") {
  // Two GPUs on two sockets, each with a NIC on its PCIe switch (PIX). NCCL 2.14 and later send such a
  // pair through the NICs when they beat its socket-link constant (paths.cc ncclTopoCheckNet); tpsim
  // keeps it staged and says so. Without the NICs the note stays as it was.
  auto note_for = [](const std::string& matrix, const std::string& name) {
    const std::string path = (tpsim::test::scratch_dir() / name).string();
    std::ofstream(path) << platform_xml(parse_topo_matrix(matrix, name), gpu_link_spec("L40S-48GB"), "intel");
    Topology topo(load_platform_file(path), {}, "");
    CollectiveModel model(topo, CollectiveSpec{}, nullptr);
    const GroupSummary g = model.summary(CollectiveOp::all_reduce, {0, 1});
    REQUIRE(g.staged_edge);
    CHECK(g.staged_edge->crosses_socket);
    return staging_note(*g.staged_edge, g.staging);
  };
  const std::string with_nics = note_for("        GPU0    GPU1    NIC0    NIC1    CPU Affinity    NUMA Affinity\n"
                                         "GPU0     X      SYS     PIX     SYS     0-7             0\n"
                                         "GPU1    SYS      X      SYS     PIX     8-15            1\n"
                                         "NIC0    PIX     SYS      X      SYS\n"
                                         "NIC1    SYS     PIX     SYS      X\n",
                                         "nics.txt");
  CHECK(with_nics.find("both GPUs of its slowest pair have a NIC behind their PCIe switch: NCCL 2.14 and later send such a pair "
                       "through the NICs") != std::string::npos);
  CHECK(with_nics.ends_with("NCCL_NET_DISABLE_INTRA=1 keeps the pair on shared memory, as simulated"));
  const std::string one_nic = note_for("        GPU0    GPU1    NIC0    CPU Affinity    NUMA Affinity\n"
                                       "GPU0     X      SYS     PIX     0-7             0\n"
                                       "GPU1    SYS      X      SYS     8-15            1\n"
                                       "NIC0    PIX     SYS      X\n",
                                       "one-nic.txt");
  CHECK(one_nic.find("NIC") == std::string::npos);  // GPU1 has no NIC near it: NCCL keeps SHM
}

TEST_CASE("host-staged rings on an NVLink box run no LL128 (NCCL enables it only on NVLink paths) and carry no NVLink lean note") {
  // NCCL's tuner (tuning.cc) enables LL128 where the ring's paths within the node are NVLink (typeIntra
  // <= PATH_NVB); P2P off routes them through the CPU. DGX A100 GPUs 4-7 with P2P off: at 32 KiB the
  // fastest allowed protocol is LL (LL128 ran there at 1.35 GB/s before session 44), from 1 MiB Simple.
  Topology topo(load_platform_file(ROOT + "/platforms/dgx_a100.xml"), {}, "OFF");
  CollectiveModel cm(topo, {}, nullptr);
  for (double size_B : {32768.0, 4194304.0}) {
    const CollectivePlan& p = cm.plan(CollectiveOp::all_reduce, size_B, {4, 5, 6, 7});
    CHECK(p.staged);
    CHECK(p.protocol != Protocol::LL128);
  }
  CHECK(cm.summary(CollectiveOp::all_reduce, {4, 5, 6, 7}).ll128_enabled == false);
  // Nor the held-out NVLink sweeps' small-size lean (they ran P2P): no note of it.
  for (const std::string& note : cm.group_notes(CollectiveOp::all_reduce, {4, 5, 6, 7}))
    CHECK(note.find("NVLink, one process per GPU") == std::string::npos);
  // With P2P the same GPUs run LL128 where it is cheapest.
  Topology p2p(load_platform_file(ROOT + "/platforms/dgx_a100.xml"), {}, "");
  CHECK(CollectiveModel(p2p, {}, nullptr).summary(CollectiveOp::all_reduce, {4, 5, 6, 7}).ll128_enabled);
}
