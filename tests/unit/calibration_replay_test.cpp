// A calibration replayed on the box it measured gives the line `tpsim fit` fitted and reported, and
// a protocol the log did not run keeps NCCL's rules for it. No engine.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "config/calibration.hpp"
#include "config/gpu_catalog.hpp"
#include "config/platform_file.hpp"
#include "fit/collective_fit.hpp"
#include "model/collective_model.hpp"

using namespace tpsim;

namespace {

const std::string ROOT = TPSIM_SOURCE_DIR;

std::vector<int> first_gpus(int n) {
  std::vector<int> g(std::size_t(n), 0);
  for (int i = 0; i < n; ++i) g[std::size_t(i)] = i;
  return g;
}

// An all_reduce entry fitted on `g` (its ranks, nodes, GPU, wire rate, path class, fabric), one
// process per GPU, with `p`'s line: latency L, bus bandwidth `fraction` of the wire, fitted.
CollectiveCalibration entry_of(const GroupSummary& g, Protocol p, Algorithm a, double latency_s, double fraction) {
  CollectiveCalibration c;
  c.source = "own.log";
  c.op = CollectiveOp::all_reduce;
  c.path_class = path_class_name(g.worst_class);
  c.nranks = g.nranks;
  c.nodes = g.nodes;
  c.gpu = g.gpu_model;
  c.gpu_spec = find_gpu_any_name(c.gpu);
  c.gpus_per_thread = 1;
  c.wire_Bps = g.raw_Bps;
  c.nvlink_fabric = g.nvlink_fabric;
  if (g.nodes > 1) c.net_transport = "rdma";
  ProtocolFit f{latency_s, fraction * g.raw_Bps, true};
  f.wire_fraction = fraction;
  f.algorithm = a;
  c.protocols[static_cast<int>(p)] = f;
  return c;
}

// A box's own line: `p`'s line of an entry fitted on the first `n` GPUs of `platform` (entry_of), latency L and
// bus bandwidth B, and the run's spec forcing `protocol`.
struct OwnLine {
  Topology topo;
  std::vector<int> gpus;
  CollectiveSpec spec;
  GroupSummary g;
  Calibration cal;
  OwnLine(const std::string& platform, int n, const std::string& protocol, Protocol p, Algorithm a, double latency_s, double bus_Bps)
      : topo(load_platform_file(ROOT + "/platforms/" + platform), {}, ""), gpus(first_gpus(n)) {
    spec.protocol = protocol;
    g = CollectiveModel(topo, spec, nullptr).summary(CollectiveOp::all_reduce, gpus);
    cal.collectives.push_back(entry_of(g, p, a, latency_s, bus_Bps / g.raw_Bps));
  }
};

}  // namespace

TEST_CASE("on the box it measured, a tree/Simple line replays as fitted: the default's tree fill is in its line already") {
  // 2 DGX H100 over InfiniBand, 16 ranks, NCCL_ALGO=Tree NCCL_PROTO=Simple. At S = 2 MiB the default
  // tree stores and forwards its chunks hop by hop (tree_fill_s > 0); the fitted line, L = 100 us and
  // 0.5 of the wire, was a straight line over the sizes the log ran, so the replay is
  // L + S x 2 (N-1)/N / (0.5 W), not L times the default's ratio of a latency that grows with S.
  Topology topo(load_platform_file(ROOT + "/platforms/2x_dgx_h100_ib.xml"), {}, "");
  const std::vector<int> gpus = first_gpus(16);
  CollectiveSpec tree_simple;
  tree_simple.algorithm = "tree";
  tree_simple.protocol = "Simple";
  const double S = 2.0 * 1024 * 1024;
  CollectiveModel defaults(topo, tree_simple, nullptr);
  const GroupSummary g = defaults.summary(CollectiveOp::all_reduce, gpus);
  REQUIRE(defaults.plan(CollectiveOp::all_reduce, S, gpus).tree_fill_s > 10e-6);
  Calibration cal;
  cal.collectives.push_back(entry_of(g, Protocol::Simple, Algorithm::tree, 100e-6, 0.5));
  CollectiveModel own(topo, tree_simple, &cal);
  const CollectivePlan& p = own.plan(CollectiveOp::all_reduce, S, gpus);
  CHECK(p.calibrated);
  CHECK(p.latency_s == doctest::Approx(100e-6).scale(0));
  CHECK(p.latency_s + S * 2 * 15 / 16 / p.bus_bw_Bps == doctest::Approx(100e-6 + S * 2 * 15 / 16 / (0.5 * g.raw_Bps)).scale(0));
}

TEST_CASE("a protocol the log did not run (copied with fitted: false) keeps NCCL's rules: no LL128 over PCIe") {
  // tuning.cc enables LL128 only where the graph within a node is NVLink (typeIntra <= NVB). A fit of
  // a PCIe box records its Simple line and a copy of it for LL128, fitted: false; at 256 KiB the
  // default LL128 line would beat both LL and Simple there, but NCCL never runs it, nor does the model.
  Topology topo(load_platform_file(ROOT + "/platforms/2gpu_pcie.xml"), {}, "");
  const std::vector<int> gpus = first_gpus(2);
  CollectiveModel defaults(topo, {}, nullptr);
  const GroupSummary g = defaults.summary(CollectiveOp::all_reduce, gpus);
  REQUIRE_FALSE(g.ll128_enabled);
  CollectiveCalibration c = entry_of(g, Protocol::Simple, Algorithm::ring, 30e-6, 0.8);
  ProtocolFit copy = *c.protocols[static_cast<int>(Protocol::Simple)];
  copy.fitted = copy.latency_measured = copy.bandwidth_measured = false;  // as the file reads `fitted: false`
  c.protocols[static_cast<int>(Protocol::LL128)] = copy;
  Calibration cal;
  cal.collectives.push_back(c);
  CollectiveModel own(topo, {}, &cal);
  for (double S : {64.0 * 1024, 256.0 * 1024, 1024.0 * 1024}) {
    CAPTURE(S);
    CHECK(own.plan(CollectiveOp::all_reduce, S, gpus).protocol != Protocol::LL128);
  }
  bool said = false;
  for (const auto& n : own.calibration_notes()) said |= n.rfind("default: ring LL128 line of own.log", 0) == 0;
  CHECK(said);
}

TEST_CASE("on the box it measured, a fitted LL line replays at its own bandwidth; carried elsewhere, NCCL's LL cap bounds it") {
  // An 8x A100 fit whose LL line runs 40 us + bus bytes / 126 GB/s through 1-2 MiB (where NCCL may well
  // have run another protocol: the fit's label is its best line, not NCCL's). Replayed as it ran (one
  // process per GPU, NCCL_PROTO=LL), 1 MiB takes 40 us + 1 MiB x 2 x 7/8 / 126 GB/s; launched as -g 8,
  // another run, the line gives way to Ampere's LL cap, 42 GB/s (ll_max_bus_Bps).
  OwnLine box("dgx_a100.xml", 8, "LL", Protocol::LL, Algorithm::ring, 40e-6, 126e9);
  const double S = 1024.0 * 1024, bus_B = S * 2 * 7 / 8;
  const CollectivePlan& own = CollectiveModel(box.topo, box.spec, &box.cal).plan(CollectiveOp::all_reduce, S, box.gpus);
  CHECK(own.latency_s + bus_B / own.bus_bw_Bps == doctest::Approx(40e-6 + bus_B / 126e9).scale(0));
  CollectiveSpec g8 = box.spec;
  g8.gpus_per_thread = 8;
  CHECK(CollectiveModel(box.topo, g8, &box.cal).plan(CollectiveOp::all_reduce, S, box.gpus).bus_bw_Bps == doctest::Approx(42e9).scale(0));
}

TEST_CASE("tpsim fit turns its lines into pieces where an LL or LL128 line ran NVLS, which runs Simple alone") {
  // Lines fitted on 8 H100s, rings of 450 GB/s of wire, NVLS offered above 0.8 x 450 = 360 GB/s: LL at 35.5 us
  // and 322 GB/s won 1 KiB-16 MiB, "LL128" at 69.9 us and 453 GB/s (above every ring: NVLS) 32-256 MiB, Simple
  // at 197 us and 484 GB/s from 512 MiB. No run can replay an NVLS LL128 line, so the sizes each line won
  // become pieces with its numbers: ring LL up to 16 MiB, then NVLS Simple up to 256 MiB, then NVLS Simple.
  fit::CollectiveFit f;
  f.op = CollectiveOp::all_reduce;
  f.nranks = 8;
  const double MiB = 1 << 20;
  f.protocols[0] = {35.5e-6, 322e9, true};
  f.protocols[1] = {69.9e-6, 453e9, true};
  f.protocols[2] = {197e-6, 484e9, true};
  f.points = {{1024, 0, 0, Protocol::LL, -1},
              {16 * MiB, 0, 0, Protocol::LL, -1},
              {32 * MiB, 0, 0, Protocol::LL128, -1},
              {256 * MiB, 0, 0, Protocol::LL128, -1},
              {512 * MiB, 0, 0, Protocol::Simple, -1}};
  fit::CollectiveFit forced = f, plain = f;
  forced.forced_algorithm = Algorithm::nvls;
  plain.protocols[1].bus_bw_Bps = 300e9;  // below every ring's reach: LL128 as labelled
  fit::annotate_transfer(f, 450e9, 0.8 * 450e9);
  REQUIRE(f.pieces.size() == 3);
  CHECK((f.pieces[0].algorithm == Algorithm::ring && f.pieces[0].protocol == Protocol::LL && f.pieces[0].max_size_B == 16 * MiB));
  CHECK(f.pieces[0].bus_bw_Bps == 322e9);
  CHECK((f.pieces[1].algorithm == Algorithm::nvls && f.pieces[1].protocol == Protocol::Simple && f.pieces[1].max_size_B == 256 * MiB));
  CHECK((f.pieces[1].latency_s == 69.9e-6 && f.pieces[1].bus_bw_Bps == 453e9));
  CHECK((f.pieces[2].algorithm == Algorithm::nvls && f.pieces[2].max_size_B == INFINITY));
  CHECK((f.points[2].piece == 1 && f.points[2].protocol == Protocol::Simple));
  // Lines that NCCL could have run as labelled (no LL or LL128 line above every ring) stay lines; so do a
  // log's under a forced algorithm (it ran what it forced).
  fit::annotate_transfer(forced, 450e9, 0.8 * 450e9);
  CHECK(forced.pieces.empty());
  fit::annotate_transfer(plain, 450e9, 0.8 * 450e9);
  CHECK(plain.pieces.empty());
}

TEST_CASE("on its own run an NVLS line stands for the rings and trees of its protocol: the fit drew one line a protocol") {
  // 2 DGX H100 over InfiniBand, 16 ranks: a Simple line of 900 us and 343 GB/s, labelled NVLS-tree (the fit's
  // label for a line above the rings' wire), as a slow box's (GCP's A3 Mega over TCPXO) was. At 16 MiB the default
  // ring/Simple (about 283 us + bus bytes / 376 GB/s) would beat it, but the log ran Simple at the fitted line's
  // pace: replayed as it ran, S = 16 MiB takes 900 us + S x 2 x 15/16 / 343 GB/s. Launched another way, the
  // defaults of the other algorithms come back and the ring wins.
  OwnLine box("2x_dgx_h100_ib.xml", 16, "Simple", Protocol::Simple, Algorithm::nvls_tree, 900e-6, 343e9);
  const double S = 16.0 * 1024 * 1024, bus_B = S * 2 * 15 / 16;
  const CollectivePlan& own = CollectiveModel(box.topo, box.spec, &box.cal).plan(CollectiveOp::all_reduce, S, box.gpus);
  CHECK(own.calibrated);
  CHECK(own.latency_s + bus_B / own.bus_bw_Bps == doctest::Approx(900e-6 + bus_B / 343e9).scale(0));
  CollectiveSpec g8 = box.spec;
  g8.gpus_per_thread = 8;
  const CollectivePlan& other = CollectiveModel(box.topo, g8, &box.cal).plan(CollectiveOp::all_reduce, S, box.gpus);
  CHECK(other.latency_s + bus_B / other.bus_bw_Bps < 0.5 * (900e-6 + bus_B / 343e9));
}
