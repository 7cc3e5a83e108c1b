// Protocol size ranges from a calibration (the `max_size` of each protocol, written by
// `tpsim fit` when the measured curve jumps up at NCCL's protocol switches): the collective
// model runs the protocol whose range holds the size, not the fastest one, unless the
// scenario forces a protocol. No engine.
#include <doctest/doctest.h>

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
#include "model/collective_model.hpp"
#include "util/error.hpp"

using namespace tpsim;

namespace {

const std::string ROOT = TPSIM_SOURCE_DIR;
constexpr double KiB = 1024, MiB = 1024 * KiB;

// Two GPUs behind PCIe, all_reduce at 2 ranks (bus factor 1, direct algorithm). LL runs up
// to 64 KiB, LL128 up to 4 MiB, Simple beyond, and Simple is the fastest at every size.
Calibration ranged_calibration() {
  CollectiveCalibration c;
  c.source = "ranges.log";
  c.op = "all_reduce";
  c.nranks = 2;
  c.protocols[0] = ProtocolFit{20e-6, 1e9, true, 64 * KiB};
  c.protocols[1] = ProtocolFit{30e-6, 5e9, true, 4 * MiB};
  c.protocols[2] = ProtocolFit{5e-6, 20e9, true, std::nullopt};
  Calibration cal;
  cal.collectives.push_back(c);
  return cal;
}

struct Pcie2 {
  Topology topo{load_platform_file(ROOT + "/platforms/2gpu_pcie.xml"), HardwareSpec{}, ""};
  const CollectivePlan& plan(const Calibration& cal, double size_B, const std::string& protocol = "auto") {
    CollectiveSpec spec;
    spec.protocol = protocol;
    models.push_back(std::make_unique<CollectiveModel>(topo, spec, &cal));
    return models.back()->plan(CollectiveOp::all_reduce, size_B, {0, 1});
  }
  std::vector<std::unique_ptr<CollectiveModel>> models;
};

// A temporary file holding `text`, removed at the end of the scope.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& name, const std::string& text)
      : path((std::filesystem::temp_directory_path() / name).string()) {
    std::ofstream(path) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

std::string error_of_calibration(const std::string& text) {
  TempFile f("tpsim_ranges_test.yaml", text);
  try {
    load_calibration(f.path);
  } catch (const InputError& e) {
    return std::string(e.what()).substr(f.path.size());
  }
  return "";
}

}  // namespace

TEST_CASE("ranges pick the protocol by size even where another protocol is faster") {
  Calibration cal = ranged_calibration();
  Pcie2 box;
  // 1 KiB: LL (20 us + 1 KiB / 1 GB/s = 21.0 us) although Simple would take 5.05 us.
  const CollectivePlan& small = box.plan(cal, 1 * KiB);
  CHECK(small.protocol == Protocol::LL);
  CHECK(small.calibrated);
  CHECK(small.time_s() == doctest::Approx(20e-6 + 1024 / 1e9).epsilon(1e-9));
  // The ends of each range: 64 KiB is LL's last size, one byte more is LL128's.
  CHECK(box.plan(cal, 64 * KiB).protocol == Protocol::LL);
  CHECK(box.plan(cal, 64 * KiB + 1).protocol == Protocol::LL128);
  const CollectivePlan& mid = box.plan(cal, 1 * MiB);
  CHECK(mid.protocol == Protocol::LL128);
  CHECK(mid.time_s() == doctest::Approx(30e-6 + MiB / 5e9).epsilon(1e-9));
  CHECK(box.plan(cal, 4 * MiB).protocol == Protocol::LL128);
  const CollectivePlan& big = box.plan(cal, 64 * MiB);
  CHECK(big.protocol == Protocol::Simple);
  CHECK(big.time_s() == doctest::Approx(5e-6 + 64 * MiB / 20e9).epsilon(1e-9));
}

TEST_CASE("without ranges, or with a protocol forced, the ranges decide nothing") {
  Calibration cal = ranged_calibration();
  Pcie2 box;
  // A forced protocol runs at every size, inside its range or not.
  CHECK(box.plan(cal, 1 * KiB, "Simple").protocol == Protocol::Simple);
  CHECK(box.plan(cal, 64 * MiB, "LL").protocol == Protocol::LL);
  // No max_size anywhere: the fastest protocol, Simple, at every size.
  for (auto& p : cal.collectives[0].protocols) p->max_size_B.reset();
  for (double size : {1 * KiB, 1 * MiB, 64 * MiB}) CHECK(box.plan(cal, size).protocol == Protocol::Simple);
}

TEST_CASE("the ranges come from the entry that also gives the costs") {
  // A better match for this group (same path class) without ranges: the fastest protocol
  // runs, with that entry's numbers; the ranged entry (no path class) is not consulted.
  Calibration cal = ranged_calibration();
  Pcie2 box;
  const GpuPath& path = box.topo.path(0, 1);
  CollectiveCalibration exact = cal.collectives[0];
  exact.path_class = path_class_name(path.path_class);
  exact.protocols[0] = ProtocolFit{2e-6, 1e9, true, std::nullopt};
  exact.protocols[1] = ProtocolFit{4e-6, 5e9, true, std::nullopt};
  exact.protocols[2] = ProtocolFit{8e-6, 20e9, true, std::nullopt};
  REQUIRE_FALSE(path.staged);
  cal.collectives.push_back(exact);
  const CollectivePlan& p = box.plan(cal, 1 * KiB);
  CHECK(p.protocol == Protocol::LL);
  CHECK(p.time_s() == doctest::Approx(2e-6 + 1024 / 1e9).epsilon(1e-9));
  CHECK(box.plan(cal, 64 * MiB).protocol == Protocol::Simple);
}

TEST_CASE("fit -> YAML -> load_calibration -> model: the OCI RoCE ranges replay") {
  const std::string log_path = ROOT + "/calibrate/recorded/oci-2x-bm-gpu4-8-16xa100-40gb-roce.log";
  std::ifstream in(log_path);
  std::stringstream text;
  text << in.rdbuf();
  fit::CollectiveFit f = fit::fit_collective(fit::parse_nccl_log(text.str(), log_path));
  REQUIRE(f.ranged());
  f.path_class = "NET";
  f.nodes = 2;
  TempFile yaml("tpsim_ranges_oci.yaml", fit::calibration_yaml({{log_path}, {f}, std::nullopt, std::nullopt}));
  const Calibration cal = load_calibration(yaml.path);
  REQUIRE(cal.collectives.size() == 1);
  const CollectiveCalibration& c = cal.collectives[0];
  CHECK(c.ranged());
  CHECK(c.protocols[0]->max_size_B == 64 * KiB);
  CHECK(c.protocols[1]->max_size_B == 32 * MiB);
  CHECK_FALSE(c.protocols[2]->max_size_B);

  // The 16 GPUs of the OCI platform run, at every measured size, the fit's protocol.
  Topology topo(load_platform_file(ROOT + "/platforms/oci_2x_a100_40gb_roce.xml"), HardwareSpec{}, "");
  CollectiveModel model(topo, CollectiveSpec{}, &cal);
  std::vector<int> gpus;
  for (int g = 0; g < 16; ++g) gpus.push_back(g);
  for (const fit::FitPoint& p : f.points) {
    INFO("size ", p.size_B);
    const CollectivePlan& plan = model.plan(CollectiveOp::all_reduce, p.size_B, gpus);
    CHECK(static_cast<int>(plan.protocol) == static_cast<int>(p.protocol));
    CHECK(plan.time_s() == doctest::Approx(p.predicted_s).epsilon(2e-3));
  }
}

TEST_CASE("max_size in a calibration file: read, and refused where ranges would leave a gap") {
  const std::string head =
      "collectives:\n"
      "  - op: all_reduce\n"
      "    nranks: 2\n"
      "    protocols:\n";
  CHECK(error_of_calibration(head +
                             "      LL:     { latency: 10us, bus_bandwidth: 1GBps, max_size: 64KiB }\n"
                             "      Simple: { latency: 10us, bus_bandwidth: 9GBps }\n") == "");
  CHECK(error_of_calibration(head +
                             "      LL:     { latency: 10us, bus_bandwidth: 1GBps, max_size: 1MiB }\n"
                             "      LL128:  { latency: 10us, bus_bandwidth: 5GBps, max_size: 64KiB }\n"
                             "      Simple: { latency: 10us, bus_bandwidth: 9GBps }\n") ==
        ":6:64: error: 'max_size' of LL128 is below the previous protocol's: ranges must grow from LL to LL128 to "
        "Simple (a protocol without 'max_size' takes every larger size)");
  CHECK(error_of_calibration(head +
                             "      LL:     { latency: 10us, bus_bandwidth: 1GBps, max_size: 64KiB }\n"
                             "      LL128:  { latency: 10us, bus_bandwidth: 5GBps, max_size: 1MiB }\n") ==
        ":6:64: error: the last protocol (LL128) must have no 'max_size': larger sizes would have no protocol");
  CHECK(error_of_calibration(head + "      LL:     { latency: 10us, bus_bandwidth: 1GBps, max_size: -1B }\n"
                                    "      Simple: { latency: 10us, bus_bandwidth: 9GBps }\n") ==
        ":5:64: error: 'max_size': '-1B' is negative; a size must be >= 0");
  CHECK(error_of_calibration(head + "      LL:     { latency: 10us, bus_bandwidth: 1GBps, max_sise: 1B }\n")
            .starts_with(":5:"));
}
