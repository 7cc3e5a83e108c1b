// Calibration pieces (the `pieces` list `tpsim fit` writes when a measured curve follows NCCL's
// choice of (algorithm, protocol) by size): the collective model runs the algorithm, protocol,
// latency and bus bandwidth of the piece that holds the size, not the fastest protocol, unless
// the scenario forces a protocol or an algorithm. No engine.
#include <doctest/doctest.h>

#include "../scratch_dir.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "config/calibration.hpp"
#include "config/platform_file.hpp"
#include "fit/calibration_yaml.hpp"
#include "fit/collective_fit.hpp"
#include "fit/nccl_log.hpp"
#include "model/calibration_use.hpp"
#include "model/collective_model.hpp"
#include "util/error.hpp"

using namespace tpsim;

namespace {

const std::string ROOT = TPSIM_SOURCE_DIR;
constexpr double KiB = 1024, MiB = 1024 * KiB;

// Two GPUs behind PCIe, all_reduce at 2 ranks (bus factor 1, direct algorithm). The
// protocols (the fastest wins) make Simple the fastest at every size; the pieces run direct
// LL up to 64 KiB, ring LL128 up to 4 MiB, direct Simple beyond.
Calibration pieces_calibration() {
  CollectiveCalibration c;
  c.source = "pieces.log";
  c.op = CollectiveOp::all_reduce;
  c.nranks = 2;
  c.protocols[0] = ProtocolFit{20e-6, 1e9, true};
  c.protocols[1] = ProtocolFit{30e-6, 5e9, true};
  c.protocols[2] = ProtocolFit{5e-6, 20e9, true};
  c.pieces = {{Algorithm::direct, Protocol::LL, 20e-6, 1e9, 64 * KiB},
              {Algorithm::ring, Protocol::LL128, 30e-6, 5e9, 4 * MiB},
              {Algorithm::direct, Protocol::Simple, 5e-6, 20e9, std::nullopt}};
  Calibration cal;
  cal.collectives.push_back(c);
  return cal;
}

struct Pcie2 {
  Topology topo{load_platform_file(ROOT + "/platforms/2gpu_pcie.xml"), HardwareSpec{}, ""};
  const CollectivePlan& plan(const Calibration& cal, double size_B, const std::string& protocol = "auto",
                             const std::string& algorithm = "auto") {
    CollectiveSpec spec;
    spec.protocol = protocol;
    spec.algorithm = algorithm;
    models.push_back(std::make_unique<CollectiveModel>(topo, spec, &cal));
    return models.back()->plan(CollectiveOp::all_reduce, size_B, {0, 1});
  }
  std::vector<std::unique_ptr<CollectiveModel>> models;
};

// A temporary file holding `text`, removed at the end of the scope.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& name, const std::string& text)
      : path((tpsim::test::scratch_dir() / name).string()) {
    std::ofstream(path) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

std::string error_of_calibration(const std::string& text) {
  TempFile f("tpsim_pieces_test.yaml", text);
  try {
    load_calibration(f.path);
  } catch (const InputError& e) {
    return std::string(e.what()).substr(f.path.size());
  }
  return "";
}

// The OCI RoCE log fitted as `tpsim fit` does (its comments say 2 nodes), written as YAML and
// loaded back, with the fit it came from.
struct OciChain {
  fit::CollectiveFit fit;
  Calibration cal;
  OciChain() {
    const std::string log_path = ROOT + "/calibrate/recorded/oci-2x-bm-gpu4-8-16xa100-40gb-roce.log";
    std::ifstream in(log_path);
    std::stringstream text;
    text << in.rdbuf();
    fit::FitOptions options;
    options.nodes = 2;
    fit = fit::fit_collective(fit::parse_nccl_log(text.str(), log_path), options);
    fit.path_class = "NET";
    TempFile yaml("tpsim_pieces_oci.yaml", fit::calibration_yaml({{log_path}, {fit}, std::nullopt, std::nullopt}));
    cal = load_calibration(yaml.path);
  }
};

std::vector<int> gpus_of(std::initializer_list<std::pair<int, int>> ranges) {
  std::vector<int> gpus;
  for (auto [first, last] : ranges)
    for (int g = first; g <= last; ++g) gpus.push_back(g);
  return gpus;
}

}  // namespace

TEST_CASE("pieces pick algorithm and protocol by size even where another protocol is faster") {
  Calibration cal = pieces_calibration();
  Pcie2 box;
  // 1 KiB: direct LL, 20 us + 1 KiB / 1 GB/s = 21.0 us, although Simple would take 5.05 us.
  const CollectivePlan& small = box.plan(cal, 1 * KiB);
  CHECK(small.algorithm == Algorithm::direct);
  CHECK(small.protocol == Protocol::LL);
  CHECK(small.calibrated);
  CHECK(small.time_s() == doctest::Approx(20e-6 + 1024 / 1e9).scale(0).epsilon(1e-9));
  // The ends of each piece: 64 KiB is the first piece's last size, one byte more the second's.
  CHECK(box.plan(cal, 64 * KiB).protocol == Protocol::LL);
  CHECK(box.plan(cal, 64 * KiB + 1).protocol == Protocol::LL128);
  // 1 MiB: ring LL128, fitted at the group's own 2 ranks (no extrapolation),
  // 30 us + 1 MiB / 5 GB/s.
  const CollectivePlan& mid = box.plan(cal, 1 * MiB);
  CHECK(mid.algorithm == Algorithm::ring);
  CHECK(mid.protocol == Protocol::LL128);
  CHECK(mid.time_s() == doctest::Approx(30e-6 + MiB / 5e9).scale(0).epsilon(1e-9));
  CHECK(box.plan(cal, 4 * MiB).protocol == Protocol::LL128);
  const CollectivePlan& big = box.plan(cal, 64 * MiB);
  CHECK(big.algorithm == Algorithm::direct);
  CHECK(big.protocol == Protocol::Simple);
  CHECK(big.time_s() == doctest::Approx(5e-6 + 64 * MiB / 20e9).scale(0).epsilon(1e-9));
}

TEST_CASE("below the smallest measured size a calibration applies only where its fitted curve is flat") {
  // The pieces' calibration measured from 256 KiB: there its piece (ring LL128, 30 us, 5 GB/s)
  // spends 256 KiB / 5 GB/s = 52.4 us of 82.4 us on bandwidth (64% >= FLAT_FLOOR_SHARE 5%), so its
  // 30 us intercept is an extrapolation: below 256 KiB the default model runs, and says so.
  Calibration cal = pieces_calibration();
  cal.collectives[0].min_size_B = 256 * KiB;
  CHECK(below_measured_sizes(cal.collectives[0], 256 * KiB) == std::nullopt);
  CHECK(below_measured_sizes(cal.collectives[0], 1 * KiB) ==
        "pieces.log measured from 262144 B, where its fitted curve still rises (64% of the time is bandwidth): below that size the "
        "defaults apply");
  Topology topo(load_platform_file(ROOT + "/platforms/2gpu_pcie.xml"), HardwareSpec{}, "");
  CollectiveModel model(topo, CollectiveSpec{}, &cal), plain(topo, CollectiveSpec{}, nullptr);
  const CollectivePlan& small = model.plan(CollectiveOp::all_reduce, 1 * KiB, {0, 1});
  CHECK_FALSE(small.calibrated);
  CHECK(small.time_s() == doctest::Approx(plain.plan(CollectiveOp::all_reduce, 1 * KiB, {0, 1}).time_s()).scale(0));
  CHECK(model.plan(CollectiveOp::all_reduce, 256 * KiB, {0, 1}).protocol == Protocol::LL128);  // its piece again
  const std::vector<std::string> notes = model.calibration_notes();
  CHECK(std::count(notes.begin(), notes.end(), "default: " + *below_measured_sizes(cal.collectives[0], 1 * KiB)) == 1);
  // Measured from 64 B instead: 20 us + 64 B / 1 GB/s, 0.3% bandwidth, the floor is flat and holds at 8 B.
  cal.collectives[0].min_size_B = 64;
  CHECK(below_measured_sizes(cal.collectives[0], 8) == std::nullopt);
  CollectiveModel flat(topo, CollectiveSpec{}, &cal);
  CHECK(flat.plan(CollectiveOp::all_reduce, 8, {0, 1}).time_s() == doctest::Approx(20e-6 + 8 / 1e9).scale(0).epsilon(1e-9));
}

TEST_CASE("above the largest measured size the extra bytes go at the faster of the line's and the default rate") {
  // A line of 10 us + B / 200 GB/s measured up to 128 MiB, on a group whose default runs at
  // 240 GB/s: at 256 MiB of 1.75 bus bytes per byte, t = 10 us + B_max / 200 + (B - B_max) / 240,
  // the line's latency moved by B_max x (1/200 - 1/240) and the default's bandwidth.
  CollectiveCalibration e;
  e.source = "short.log";
  e.max_size_B = 128 * MiB;
  const double bus_max = 128 * MiB * 1.75, bus = 256 * MiB * 1.75;
  LineCosts c{10e-6, 200e9, true};
  const auto how = above_measured_sizes(e, Protocol::Simple, 256 * MiB, 1.75, 240e9, c);
  CHECK(how == "Simple line of short.log, measured up to 134217728 B: above it the extra bytes at the default 240 GB/s bus bandwidth, "
               "not the line's 200 GB/s");
  CHECK(c.bus_bw_Bps == 240e9);
  CHECK(c.latency_s + bus / c.bus_bw_Bps == doctest::Approx(10e-6 + bus_max / 200e9 + (bus - bus_max) / 240e9).scale(0).epsilon(1e-12));
  // Within the measured sizes, or where the line is the faster, the line holds untouched.
  LineCosts within{10e-6, 200e9, true}, faster{10e-6, 260e9, true};
  CHECK(above_measured_sizes(e, Protocol::Simple, 128 * MiB, 1.75, 240e9, within) == std::nullopt);
  CHECK(above_measured_sizes(e, Protocol::Simple, 256 * MiB, 1.75, 240e9, faster) == std::nullopt);
  CHECK(within.latency_s == 10e-6);
  CHECK(faster.bus_bw_Bps == 260e9);
  // A network line holds as fitted (the 2x HGX H100 log's large sizes stay on one line).
  e.nodes = 2;
  CHECK(above_measured_sizes(e, Protocol::Simple, 256 * MiB, 1.75, 240e9, within) == std::nullopt);
  // A calibration that does not record its sizes (max 0) is a line at every size.
  e.nodes = 1, e.max_size_B = 0;
  CHECK(above_measured_sizes(e, Protocol::Simple, 256 * MiB, 1.75, 240e9, within) == std::nullopt);
}

TEST_CASE("above the largest measured size the pieces step aside and the lines run, continued at the default rate") {
  // The pieces measured up to 4 MiB; at 64 MiB the Simple line (5 us + S / 20 GB/s, 2 ranks: bus
  // factor 1) holds to 4 MiB and the default rate of the two GPUs' PCIe carries the rest, when faster.
  Calibration cal = pieces_calibration();
  cal.collectives[0].max_size_B = 4 * MiB;
  Pcie2 box;
  const double default_Bps = box.plan(Calibration{}, 64 * MiB).bus_bw_Bps;
  REQUIRE(default_Bps > 20e9);
  const CollectivePlan& big = box.plan(cal, 64 * MiB);
  CHECK(big.protocol == Protocol::Simple);
  CHECK(big.calibrated);
  CHECK(big.time_s() == doctest::Approx(5e-6 + 4 * MiB / 20e9 + 60 * MiB / default_Bps).scale(0).epsilon(1e-9));
  // At 4 MiB its piece still runs: ring LL128, 30 us + S / 5 GB/s.
  CHECK(box.plan(cal, 4 * MiB).time_s() == doctest::Approx(30e-6 + 4 * MiB / 5e9).scale(0).epsilon(1e-9));
}

TEST_CASE("a forced protocol or algorithm, or no pieces: the fastest protocol runs") {
  Calibration cal = pieces_calibration();
  Pcie2 box;
  // A forced protocol runs at every size, with the protocols' numbers.
  const CollectivePlan& simple = box.plan(cal, 1 * KiB, "Simple");
  CHECK(simple.protocol == Protocol::Simple);
  CHECK(simple.time_s() == doctest::Approx(5e-6 + 1024 / 20e9).scale(0).epsilon(1e-9));
  CHECK(box.plan(cal, 64 * MiB, "LL").protocol == Protocol::LL);
  // A forced algorithm: the pieces are NCCL's own choice of both, so they step aside and the
  // fastest protocol (Simple) runs with that algorithm.
  const CollectivePlan& ring = box.plan(cal, 1 * KiB, "auto", "ring");
  CHECK(ring.algorithm == Algorithm::ring);
  CHECK(ring.protocol == Protocol::Simple);
  // No pieces: Simple at every size.
  cal.collectives[0].pieces.clear();
  for (double size : {1 * KiB, 1 * MiB, 64 * MiB}) CHECK(box.plan(cal, size).protocol == Protocol::Simple);
}

TEST_CASE("a forced protocol keeps the pieces of a log that ran that protocol alone") {
  // The pieces' calibration relabelled as a log run with NCCL_PROTO=LL128 (tpsim fit --protocol
  // LL128): every piece LL128, so under a forced LL128 they still hold, each with its own numbers
  // (1 KiB: the first piece, direct, 20 us + 1 KiB / 1 GB/s); under a forced Simple they step aside.
  Calibration cal = pieces_calibration();
  for (auto& piece : cal.collectives[0].pieces) piece.protocol = Protocol::LL128;
  Pcie2 box;
  const CollectivePlan& small = box.plan(cal, 1 * KiB, "LL128");
  CHECK(small.protocol == Protocol::LL128);
  CHECK(small.algorithm == Algorithm::direct);
  CHECK(small.time_s() == doctest::Approx(20e-6 + 1024 / 1e9).scale(0).epsilon(1e-9));
  const CollectivePlan& simple = box.plan(cal, 1 * KiB, "Simple");
  CHECK(simple.protocol == Protocol::Simple);
  CHECK(simple.time_s() == doctest::Approx(5e-6 + 1024 / 20e9).scale(0).epsilon(1e-9));
}

TEST_CASE("a forced algorithm keeps the pieces of a log that ran that algorithm alone") {
  // The pieces relabelled as a log run with NCCL_ALGO=Ring (tpsim fit --algorithm ring): under a
  // forced ring they hold (1 KiB: the first piece's 20 us + 1 KiB / 1 GB/s, its protocol LL).
  Calibration cal = pieces_calibration();
  for (auto& piece : cal.collectives[0].pieces) piece.algorithm = Algorithm::ring;
  Pcie2 box;
  const CollectivePlan& ring = box.plan(cal, 1 * KiB, "auto", "ring");
  CHECK(ring.algorithm == Algorithm::ring);
  CHECK(ring.protocol == Protocol::LL);
  CHECK(ring.time_s() == doctest::Approx(20e-6 + 1024 / 1e9).scale(0).epsilon(1e-9));
}

TEST_CASE("pieces of a log that ran under NCCL_ALGO or NCCL_PROTO step aside where the run leaves the choice to NCCL") {
  // The pieces relabelled ring, as a log run with NCCL_ALGO=Ring records them (forced_algorithm:
  // ring): they are NCCL's steps within the ring, not its choice of algorithm. A run that leaves
  // the algorithm to NCCL takes the fastest protocol's line, Simple (5 us + 1 KiB / 20 GB/s); a run
  // that forces the ring too takes the first piece (20 us + 1 KiB / 1 GB/s, LL). Likewise a log run
  // with NCCL_PROTO=LL128 (forced_protocol: LL128) under a run that leaves the protocol to NCCL.
  Calibration cal = pieces_calibration();
  for (auto& piece : cal.collectives[0].pieces) piece.algorithm = Algorithm::ring;
  cal.collectives[0].forced_algorithm = Algorithm::ring;
  Pcie2 box;
  const CollectivePlan& free = box.plan(cal, 1 * KiB);
  CHECK(free.protocol == Protocol::Simple);
  CHECK(free.time_s() == doctest::Approx(5e-6 + 1024 / 20e9).scale(0).epsilon(1e-9));
  const std::vector<std::string> notes = box.models.back()->calibration_notes();
  CHECK(std::find(notes.begin(), notes.end(),
                  "extrapolated: size pieces of pieces.log not used: the log ran under NCCL_ALGO=ring, which this run leaves to NCCL; "
                  "its lines apply") != notes.end());
  CHECK(box.plan(cal, 1 * KiB, "auto", "ring").time_s() == doctest::Approx(20e-6 + 1024 / 1e9).scale(0).epsilon(1e-9));
  Calibration proto = pieces_calibration();
  for (auto& piece : proto.collectives[0].pieces) piece.protocol = Protocol::LL128;
  proto.collectives[0].forced_protocol = Protocol::LL128;
  CHECK(box.plan(proto, 1 * KiB).protocol == Protocol::Simple);
  CHECK(box.plan(proto, 1 * KiB, "LL128").time_s() == doctest::Approx(20e-6 + 1024 / 1e9).scale(0).epsilon(1e-9));
}

TEST_CASE("the calibration file records what the log ran under, and reads it back") {
  // tpsim fit sets forced_algorithm and forced_protocol from NCCL_ALGO / NCCL_PROTO (or its flags): the
  // file says so, so that a run which leaves the choice to NCCL does not take the pieces for NCCL's.
  const OciChain chain;
  CHECK_FALSE(chain.cal.collectives.at(0).forced_algorithm);
  CHECK_FALSE(chain.cal.collectives.at(0).forced_protocol);
  fit::CollectiveFit forced = chain.fit;
  forced.forced_algorithm = Algorithm::ring, forced.forced_protocol = Protocol::Simple;
  const std::string yaml = fit::calibration_yaml({{"oci.log"}, {forced}, std::nullopt, std::nullopt});
  CHECK(yaml.find("    forced_algorithm: ring   # the log ran under NCCL_ALGO=ring: its pieces are NCCL's steps within it, used "
                  "where a run forces it too\n") != std::string::npos);
  const CollectiveCalibration read = parse_calibration(yaml, "oci.yaml").collectives.at(0);
  CHECK(read.forced_algorithm == Algorithm::ring);
  CHECK(read.forced_protocol == Protocol::Simple);
}

TEST_CASE("the pieces come from the entry that describes the group best") {
  // A better match for this group (same path class) without pieces: the fastest protocol
  // runs, with that entry's numbers; the entry with pieces (no path class) is not consulted.
  Calibration cal = pieces_calibration();
  Pcie2 box;
  const GpuPath& path = box.topo.path(0, 1);
  CollectiveCalibration exact = cal.collectives[0];
  exact.path_class = path_class_name(path.path_class);
  exact.protocols[0] = ProtocolFit{2e-6, 1e9, true};
  exact.protocols[1] = ProtocolFit{4e-6, 5e9, true};
  exact.protocols[2] = ProtocolFit{8e-6, 20e9, true};
  exact.pieces.clear();
  REQUIRE_FALSE(path.staged);
  cal.collectives.push_back(exact);
  const CollectivePlan& p = box.plan(cal, 1 * KiB);
  CHECK(p.protocol == Protocol::LL);
  CHECK(p.time_s() == doctest::Approx(2e-6 + 1024 / 1e9).scale(0).epsilon(1e-9));
  CHECK(box.plan(cal, 64 * MiB).protocol == Protocol::Simple);
}

TEST_CASE("fit -> YAML -> load_calibration -> model: the OCI RoCE pieces replay at every measured size") {
  const OciChain chain;
  REQUIRE(chain.cal.collectives.size() == 1);
  const CollectiveCalibration& c = chain.cal.collectives[0];
  REQUIRE(c.pieces.size() == chain.fit.pieces.size());
  REQUIRE(c.pieces.size() == 6);
  for (std::size_t i = 0; i < c.pieces.size(); ++i) {
    CHECK(static_cast<int>(c.pieces[i].algorithm) == static_cast<int>(chain.fit.pieces[i].algorithm));
    CHECK(c.pieces[i].max_size_B.value_or(INFINITY) == chain.fit.pieces[i].max_size_B);
  }
  // The 16 GPUs of the OCI platform run, at every measured size, the fit's piece: its
  // algorithm and protocol, and its time within the YAML's 4 significant digits.
  Topology topo(load_platform_file(ROOT + "/platforms/oci_2x_a100_40gb_roce.xml"), HardwareSpec{}, "");
  CollectiveModel model(topo, CollectiveSpec{}, &chain.cal);
  const std::vector<int> gpus = gpus_of({{0, 15}});
  for (const fit::FitPoint& p : chain.fit.points) {
    INFO("size ", p.size_B);
    const CollectivePlan& plan = model.plan(CollectiveOp::all_reduce, p.size_B, gpus);
    const fit::PieceFit& piece = chain.fit.pieces[p.piece];
    CHECK(static_cast<int>(plan.algorithm) == static_cast<int>(piece.algorithm));
    CHECK(static_cast<int>(plan.protocol) == static_cast<int>(p.protocol));
    CHECK(plan.time_s() == doctest::Approx(p.predicted_s).scale(0).epsilon(2e-3));
  }
}

TEST_CASE("pieces stay on the box they measured: another rank count gets the envelope's lines, and the run says so") {
  // 8 of the 16 GPUs, 4 per node: path class NET. The pieces record NCCL's size choices on the
  // 16-rank cluster, so they are not carried; the envelope's protocol lines are (fitted without
  // a platform: absolute bandwidths), their latency moved to 8 ranks in its ratio to the default
  // model, as every carried latency is:
  //   L_p / default(p, alg, 16 ranks, NET, 2 nodes) x default(p, alg, 8 ranks, NET, 2 nodes),
  // alg the target's (a fit without a platform does not know the algorithm its line ran); both
  // across 2 nodes, so NCCL's multi-node terms (network hops on the crossing steps only) apply.
  const OciChain chain;
  const CollectiveCalibration& c = chain.cal.collectives[0];
  REQUIRE(!c.pieces.empty());
  Topology topo(load_platform_file(ROOT + "/platforms/oci_2x_a100_40gb_roce.xml"), HardwareSpec{}, "");
  CollectiveModel model(topo, CollectiveSpec{}, &chain.cal);
  const std::vector<int> gpus = gpus_of({{0, 3}, {8, 11}});
  for (double size : {1.0 * KiB, 1024.0 * MiB}) {
    INFO("size ", size);
    const CollectivePlan& plan = model.plan(CollectiveOp::all_reduce, size, gpus);
    const ProtocolFit& line = *c.protocols[static_cast<int>(plan.protocol)];
    const double at_16 = default_latency_s(plan.protocol, plan.algorithm, CollectiveOp::all_reduce, LatencyPath{16, PathClass::NET, false, 2}),
                 at_8 = default_latency_s(plan.protocol, plan.algorithm, CollectiveOp::all_reduce, LatencyPath{8, PathClass::NET, false, 2});
    CHECK(plan.latency_s == doctest::Approx(line.latency_s / at_16 * at_8).scale(0));
    CHECK(plan.bus_bw_Bps == line.bus_bw_Bps);
  }
  const std::vector<std::string> notes = model.calibration_notes();
  CHECK(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.rfind("extrapolated: size pieces of oci-2x-bm-gpu4-8-16xa100-40gb-roce.log not carried to 8 ranks", 0) == 0;
  }));
}

TEST_CASE("pieces in a calibration file: read, and refused where sizes would have no piece or two") {
  const std::string head =
      "collectives:\n"
      "  - op: all_reduce\n"
      "    nranks: 2\n"
      "    protocols:\n"
      "      Simple: { latency: 10us, bus_bandwidth: 9GBps }\n"
      "    pieces:\n";
  // Lines 7.. hold the pieces; an error points at the value it is about (column 22: the
  // algorithm), at the piece's `{` (column 9) when the piece lacks a key.
  const std::string ll = "      - { algorithm: direct, protocol: LL, latency: 10us, bus_bandwidth: 1GBps, max_size: 64KiB }\n";
  const std::string simple = "      - { algorithm: direct, protocol: Simple, latency: 10us, bus_bandwidth: 9GBps }\n";
  {
    TempFile ok("tpsim_pieces_ok.yaml", head + ll + simple);
    const Calibration cal = load_calibration(ok.path);
    const std::vector<CollectivePiece>& p = cal.collectives[0].pieces;
    REQUIRE(p.size() == 2);
    CHECK(p[0].algorithm == Algorithm::direct);
    CHECK(p[0].protocol == Protocol::LL);
    CHECK(p[0].latency_s == doctest::Approx(10e-6).scale(0));
    CHECK(p[0].bus_bw_Bps == doctest::Approx(1e9).scale(0));
    CHECK(p[0].max_size_B == 64 * KiB);
    CHECK_FALSE(p[1].max_size_B);
    CHECK(cal.collectives[0].piece_at(64 * KiB) == &p[0]);
    CHECK(cal.collectives[0].piece_at(64 * KiB + 1) == &p[1]);
  }
  CHECK(error_of_calibration(head + ll +
                             "      - { algorithm: ring, protocol: LL128, latency: 10us, bus_bandwidth: 5GBps, max_size: 4KiB }\n" +
                             simple) ==
        ":8:92: error: 'max_size' 4096B is not above the previous piece's 65536B: pieces go in increasing size order");
  CHECK(error_of_calibration(head + ll) ==
        ":7:91: error: the last piece must have no 'max_size': larger sizes would have no piece");
  CHECK(error_of_calibration(head + simple + simple) ==
        ":7:9: error: piece 1 of 2 has no 'max_size': only the last piece takes every larger size");
  CHECK(error_of_calibration(head + "      - { algorithm: trees, protocol: Simple, latency: 10us, bus_bandwidth: 9GBps }\n") ==
        ":7:22: error: 'algorithm' must be one of direct, ring, tree, nvls, nvls_tree; did you mean 'tree'?");
  CHECK(error_of_calibration(head + "      - { algorithm: ring, protocol: LL64, latency: 10us, bus_bandwidth: 9GBps }\n") ==
        ":7:38: error: 'protocol' must be one of LL, LL128, Simple; did you mean 'LL'?");
  CHECK(error_of_calibration(head + "      - { algorithm: ring, protocol: LL, latency: 10us, bus_bandwidth: 0GBps }\n") ==
        ":7:72: error: 'bus_bandwidth' must be positive");
  CHECK(error_of_calibration(head + "      []\n") == ":7:7: error: 'pieces' must be a non-empty list, in increasing size order");
  // The op names an nccl-tests collective (its bus factor decides whether a curve is flat at a size).
  CHECK(error_of_calibration("collectives:\n  - op: allreduce\n    nranks: 2\n    protocols:\n      Simple: { latency: 10us, bus_bandwidth: 9GBps }\n") ==
        ":2:9: error: 'op' must be one of all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, send_recv, gather, scatter; "
        "did you mean 'all_reduce'?");
  // Size ranges on the protocols are gone: pieces say it.
  CHECK(error_of_calibration("collectives:\n"
                             "  - op: all_reduce\n"
                             "    nranks: 2\n"
                             "    protocols:\n"
                             "      LL: { latency: 10us, bus_bandwidth: 1GBps, max_size: 64KiB }\n") ==
        ":5:50: error: unknown key 'max_size'");
}

TEST_CASE("a calibration's cpu_vendor and net_transport: read, and a located error outside their names") {
  const std::string head = "collectives:\n  - op: all_reduce\n    nranks: 16\n    nodes: 2\n";
  const std::string line = "    protocols:\n      LL: { latency: 100us, bus_bandwidth: 9GBps }\n";
  {
    TempFile ok("tpsim_envelope_hosts.yaml", head + "    cpu_vendor: amd\n    net_transport: tcp\n" + line);
    const Calibration cal = load_calibration(ok.path);
    CHECK(cal.collectives.at(0).cpu_vendor == "amd");
    CHECK(cal.collectives.at(0).net_transport == "tcp");
  }
  CHECK(error_of_calibration(head + "    net_transport: tpc\n" + line) ==
        ":5:20: error: 'net_transport' must be one of rdma, tcp, efa, cxi; did you mean 'tcp'?");
  CHECK(error_of_calibration(head + "    cpu_vendor: amdd\n" + line) ==
        ":5:17: error: 'cpu_vendor' must be one of amd, intel, arm, power, zhaoxin; did you mean 'amd'?");
}

TEST_CASE("a calibration's datatype: float unless written, and a located error outside nccl-tests' names") {
  const std::string head = "collectives:\n  - op: all_reduce\n    nranks: 8\n";
  const std::string line = "    protocols:\n      Simple: { latency: 30us, bus_bandwidth: 300GBps }\n";
  {
    TempFile plain("tpsim_envelope_float.yaml", head + line);
    CHECK(load_calibration(plain.path).collectives.at(0).datatype == "float");
    TempFile int8("tpsim_envelope_int8.yaml", head + "    datatype: int8\n" + line);
    CHECK(load_calibration(int8.path).collectives.at(0).datatype == "int8");
  }
  CHECK(error_of_calibration(head + "    datatype: bf16\n" + line) ==
        ":4:15: error: 'datatype' must be one of int8, uint8, char, f8e4m3, f8e5m2, half, float16, bfloat16, float, float32, int32, "
        "uint32, int, double, float64, int64, uint64");
}

TEST_CASE("a calibration's forced_algorithm, forced_protocol and nvlink_fabric: read, and a located error outside their names") {
  const std::string head = "collectives:\n  - op: all_reduce\n    nranks: 8\n";
  const std::string line = "    protocols:\n      Simple: { latency: 30us, bus_bandwidth: 300GBps }\n";
  {
    TempFile ok("tpsim_envelope_forced.yaml", head + "    forced_algorithm: ring\n    forced_protocol: LL128\n    nvlink_fabric: direct\n" + line);
    const CollectiveCalibration c = load_calibration(ok.path).collectives.at(0);  // a copy: the Calibration is a temporary
    CHECK(c.forced_algorithm == Algorithm::ring);
    CHECK(c.forced_protocol == Protocol::LL128);
    CHECK(c.nvlink_fabric == "direct");
  }
  CHECK(error_of_calibration(head + "    nvlink_fabric: nvswitch\n" + line) ==
        ":4:20: error: 'nvlink_fabric' must be one of switch, direct; did you mean 'switch'?");
  CHECK(error_of_calibration(head + "    forced_algorithm: rign\n" + line) ==
        ":4:23: error: 'forced_algorithm' must be one of direct, ring, tree, nvls, nvls_tree; did you mean 'ring'?");
  CHECK(error_of_calibration(head + "    forced_protocol: LL64\n" + line) ==
        ":4:22: error: 'forced_protocol' must be one of LL, LL128, Simple; did you mean 'LL'?");
}

TEST_CASE("a calibration's path_class: read, and a located error outside the classes an entry can name") {
  const std::string head = "collectives:\n  - op: all_reduce\n    nranks: 8\n";
  const std::string line = "    protocols:\n      Simple: { latency: 30us, bus_bandwidth: 300GBps }\n";
  {
    TempFile ok("tpsim_envelope_class.yaml", head + "    path_class: SHM\n" + line);
    CHECK(load_calibration(ok.path).collectives.at(0).path_class == "SHM");
  }
  // An unknown class matched no group before: every run fell back to the defaults without naming it.
  CHECK(error_of_calibration(head + "    path_class: NVLINK\n" + line) ==
        ":4:17: error: 'path_class' must be one of NVL, PIX, PXB, PHB, SYS, SHM, NET");
}

TEST_CASE("a protocol written as an unconstrained copy (fitted: false) measured neither of its terms") {
  // tpsim fit writes a protocol that runs at no measured size as a copy of its neighbour; read
  // back, it must not pass for a measured line (use_line then takes the defaults for it), while
  // a fitted line keeps both terms unless the file says otherwise.
  TempFile f("tpsim_copy.yaml",
             "collectives:\n"
             "  - op: all_reduce\n"
             "    nranks: 8\n"
             "    protocols:\n"
             "      LL:     { latency: 18us, bus_bandwidth: 432GBps, fitted: false }\n"
             "      Simple: { latency: 18us, bus_bandwidth: 432GBps, fitted: true, latency_measured: false }\n");
  const Calibration cal = load_calibration(f.path);
  const auto& ll = *cal.collectives[0].protocols[static_cast<int>(Protocol::LL)];
  const auto& simple = *cal.collectives[0].protocols[static_cast<int>(Protocol::Simple)];
  CHECK_FALSE(ll.fitted);
  CHECK_FALSE(ll.latency_measured);
  CHECK_FALSE(ll.bandwidth_measured);
  CHECK(simple.fitted);
  CHECK_FALSE(simple.latency_measured);
  CHECK(simple.bandwidth_measured);
}
