// Reading measured curves (sim/report/curve_reading, tp_decode_check, curve_plot): on every
// recorded log the reading is recomputed here from the log's own rows, the knee lies between the
// sizes that still behave like one term alone, the 2x RTX 2080 Ti verdict follows from Eq. 1.4.7,
// P2P on/off gaps are read, and the SVG parses as XML with its series.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <pugixml.hpp>
#include <sstream>
#include <tuple>

#include "config/gpu_catalog.hpp"
#include "config/model_card.hpp"
#include "fit/nccl_log.hpp"
#include "report/curve_report.hpp"
#include "util/error.hpp"

using namespace tpsim;

namespace {

const std::string ROOT = TPSIM_SOURCE_DIR;

fit::NcclLog recorded_log(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::stringstream ss;
  ss << in.rdbuf();
  return fit::parse_nccl_log(ss.str(), path);
}

std::vector<std::string> recorded_logs() {
  std::vector<std::string> logs;
  for (const auto& e : std::filesystem::directory_iterator(ROOT + "/calibrate/recorded"))
    if (e.path().extension() == ".log") logs.push_back(e.path().string());
  std::sort(logs.begin(), logs.end());
  return logs;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// A synthetic sweep T(S) = latency + S · f / bw, 1 KiB to 1 GiB by 2x: test input, not a measurement.
fit::NcclLog synthetic_log(const std::string& name, double latency_s, double bus_bw_Bps) {
  fit::NcclLog log;
  log.file = name;
  log.nranks = 2;
  log.gpu_name = "NVIDIA GeForce RTX 4090";
  for (double s = 1024; s <= 1024.0 * 1024 * 1024; s *= 2) {
    fit::NcclRow row;
    row.size_B = std::uint64_t(s);
    row.out_of_place.time_us = (latency_s + s / bus_bw_Bps) * 1e6;  // f = 2(2-1)/2 = 1
    log.rows.push_back(row);
  }
  return log;
}

}  // namespace

TEST_CASE("curve reading: alpha and bandwidth agree with every recorded log's own rows") {
  for (const auto& path : recorded_logs()) {
    CAPTURE(path);
    const fit::NcclLog log = recorded_log(path);
    const CurveReading r = read_curve(log, "");
    // Recomputed from the rows: floor = median time of the sizes up to the largest one within 10%
    // of the smallest time; alpha = floor / 2(N-1) for all_reduce, floor / (N-1) otherwise.
    std::vector<const fit::NcclRow*> rows;
    for (const auto& row : log.rows)
      if (row.size_B > 0 && row.out_of_place.time_us > 0) rows.push_back(&row);
    double t_min = INFINITY, floor_max = 0;
    for (auto* row : rows) t_min = std::min(t_min, row->out_of_place.time_us);
    for (auto* row : rows)
      if (row->out_of_place.time_us <= 1.1 * t_min) floor_max = double(row->size_B);
    std::vector<double> floor_times, printed_busbw;
    for (auto* row : rows)
      if (double(row->size_B) <= floor_max) floor_times.push_back(row->out_of_place.time_us);
    const double floor_us = median_of(floor_times);
    const int steps = log.op == CollectiveOp::all_reduce ? 2 * (log.nranks - 1) : log.nranks - 1;
    CHECK(r.floor_s * 1e6 == doctest::Approx(floor_us).scale(0).epsilon(1e-9));
    CHECK(r.alpha_s * 1e6 == doctest::Approx(floor_us / steps).scale(0).epsilon(1e-9));
    // Bus bandwidth: the median of the printed busbw column over the rows within 10% of its peak
    // (the reading computes size · f / time, which agrees with the printed cells within rounding).
    double peak = 0;
    for (auto* row : rows) peak = std::max(peak, row->out_of_place.busbw_GBps);
    for (auto* row : rows)
      if (row->out_of_place.busbw_GBps >= peak / 1.1) printed_busbw.push_back(row->out_of_place.busbw_GBps);
    CHECK(r.bus_bw_Bps / 1e9 == doctest::Approx(median_of(printed_busbw)).scale(0).epsilon(0.02));
    // algbw = busbw / f, f = 2(N-1)/N for all_reduce.
    CHECK(r.alg_bw_Bps == doctest::Approx(r.bus_bw_Bps / bus_factor(log.op, log.nranks)).scale(0));
    // S* = N · alpha · BW (Eq. 1.4.4) for all_reduce, all_gather and reduce_scatter alike.
    CHECK(r.s_star_B == doctest::Approx(log.nranks * r.alpha_s * r.bus_bw_Bps).scale(0));
  }
}

TEST_CASE("curve reading: a log that starts too large says its floor and alpha are upper bounds") {
  // The synthetic sweep from 1 KiB (latency 20 us, 100 GB/s): at 1 KiB the time is all latency, so the
  // floor is reached. The same sweep from 8 MiB (8.4 MB / 100 GB/s = 84 us, 81% of its 104 us time
  // is bandwidth; the first size above FLOOR_MAX_B, 64 KiB): not reached, and the report says so.
  const fit::NcclLog from_1k = synthetic_log("from1k.log", 20e-6, 100e9);
  CHECK(read_curve(from_1k, "").floor_reached);
  fit::NcclLog from_8m = from_1k;
  from_8m.rows.erase(from_8m.rows.begin(), from_8m.rows.begin() + 13);  // 1 KiB x 2^13 = 8 MiB
  REQUIRE(from_8m.rows.front().size_B == 8u << 20);
  const CurveReading r = read_curve(from_8m, "");
  CHECK_FALSE(r.floor_reached);
  // The floor is then the 8 MiB time, 20 + 83.9 us: an upper bound on the 20 us latency.
  CHECK(r.floor_s * 1e6 == doctest::Approx(20 + 8388608 / 100e9 * 1e6).scale(0).epsilon(1e-9));
  // A first size of 64 KiB or less, mostly latency, reaches it: 64 KiB / 100 GB/s = 0.66 us of 20.7.
  fit::NcclLog from_64k = from_1k;
  from_64k.rows.erase(from_64k.rows.begin(), from_64k.rows.begin() + 6);  // 1 KiB x 2^6 = 64 KiB
  CHECK(read_curve(from_64k, "").floor_reached);
}

TEST_CASE("curve reading: the knee lies between latency-like and bandwidth-like sizes on every recorded log") {
  for (const auto& path : recorded_logs()) {
    CAPTURE(path);
    const fit::NcclLog log = recorded_log(path);
    const CurveReading r = read_curve(log, "");
    // The largest size whose time is within 10% of the floor (pure latency), and the smallest
    // size from which every time is within 10% of S · f / BW (pure bandwidth).
    const double f = bus_factor(log.op, log.nranks);
    double latency_like = 0, bandwidth_like = INFINITY;
    for (const auto& row : log.rows)
      if (row.size_B > 0 && row.out_of_place.time_us * 1e-6 <= 1.1 * r.floor_s) latency_like = double(row.size_B);
    for (auto it = log.rows.rbegin(); it != log.rows.rend() && it->out_of_place.time_us * 1e-6 <= 1.1 * double(it->size_B) * f / r.bus_bw_Bps; ++it)
      bandwidth_like = double(it->size_B);
    REQUIRE(r.knee_B.has_value());
    CHECK(*r.knee_B >= latency_like);
    CHECK(*r.knee_B <= bandwidth_like);
    // At the knee the measured time is twice the floor: both terms equal.
    CHECK(r.time_at(*r.knee_B) == doctest::Approx(2 * r.floor_s).scale(0).epsilon(1e-6));
  }
}

TEST_CASE("curve reading: 2x RTX 2080 Ti, P2P off: alpha, knee, S* and the Eq. 1.4.7 verdict") {
  const fit::NcclLog log = recorded_log(ROOT + "/calibrate/recorded/2x-rtx2080ti-pcie-pix-no-p2p.log");
  const CurveReading r = read_curve(log, "SHM");
  // Floor: median of the 8 B .. 4 KiB times (12.25 11.77 12.86 11.61 11.69 11.78 11.77 12.10 11.83 11.79) = 11.785 us;
  // alpha = 11.785 / 2(2-1) = 5.8925 us.
  CHECK(r.floor_s * 1e6 == doctest::Approx(11.785).scale(0));
  CHECK(r.alpha_s * 1e6 == doctest::Approx(5.8925).scale(0));
  CHECK(r.floor_max_B == 4096);
  // Knee: 2 x 11.785 = 23.57 us between 16 KiB (17.11 us) and 32 KiB (24.62 us), log-log: 30157 B.
  REQUIRE(r.knee_B);
  CHECK(*r.knee_B == doctest::Approx(16384 * std::pow(2, std::log(23.57 / 17.11) / std::log(24.62 / 17.11))).scale(0));
  // S* = 2 x 5.8925 us x BW, BW the median busbw over 1 MiB .. 1 GiB (about 3.99 GB/s): about 47 KB.
  CHECK(r.s_star_B == doctest::Approx(2 * 5.8925e-6 * r.bus_bw_Bps).scale(0));
  CHECK(r.bus_bw_Bps / 1e9 == doctest::Approx(3.99).scale(0).epsilon(0.01));

  const ModelCard model = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  const GpuSpec* gpu = find_gpu("RTX2080Ti-11GB");
  REQUIRE(gpu);
  const DecodeEstimate e = estimate_tp2_decode(r, model, {gpu, "test", gpu->hbm_achievable_Bps, "the GPU table"});
  // alpha* = M_w / (4 L B_mem) = 16.06 GB / (4 x 32 x 538 GB/s) = 233 us (Eq. 1.4.7).
  CHECK(e.alpha_star_s == doctest::Approx(model.weight_bytes() / (4.0 * 32 * gpu->hbm_achievable_Bps)).scale(0));
  CHECK(e.alpha_star_s * 1e6 == doctest::Approx(233.2).scale(0).epsilon(0.01));
  // alpha_eff: the measured 8 KiB (B = 1 · d = 4096 · 2 B) all-reduce, 13.07 us; 233 / 13.07 = 17.8 > 1.25: TP=2 wins.
  CHECK(e.decode_size_B == 8192);
  CHECK(e.alpha_eff_s * 1e6 == doctest::Approx(13.07).scale(0));
  CHECK(e.margin == doctest::Approx(e.alpha_star_s / 13.07e-6).scale(0));
  CHECK(e.verdict == "TP=2 should win on decode");
  // The line: TP=2 = M_w / (2 B_mem) + 64 x 13.07 us.
  CHECK(e.tp2_s == doctest::Approx(model.weight_bytes() / (2 * gpu->hbm_achievable_Bps) + 64 * 13.07e-6).scale(0));
  // Regimes: 8 KiB is below the 30 KB knee (latency-bound); 512 KiB and a 4096-token prefill's 32 MiB above it.
  CHECK(regime_of(r, "decode B=1", 8192).latency_bound);
  CHECK_FALSE(regime_of(r, "decode B=64", 524288).latency_bound);
  CHECK_FALSE(regime_of(r, "prefill", 4096.0 * 4096 * 2).latency_bound);
}

TEST_CASE("curve reading: the verdict turns with alpha_eff against alpha*") {
  const ModelCard model = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  const GpuSpec* gpu = find_gpu("RTX4090-24GB");
  REQUIRE(gpu);
  const GpuChoice choice{gpu, "test", gpu->hbm_achievable_Bps, "the GPU table"};
  const double star = model.weight_bytes() / (4.0 * 32 * gpu->hbm_achievable_Bps);
  // A flat floor at alpha_eff: 2 x alpha* loses, alpha* is too close to call, alpha* / 2 wins.
  for (auto [alpha, verdict] : {std::pair{2 * star, "TP=2 should lose on decode"}, std::pair{star, "too close to call on decode"},
                                std::pair{star / 2, "TP=2 should win on decode"}}) {
    const CurveReading r = read_curve(synthetic_log("flat.log", alpha, 1e15), "");
    CHECK(estimate_tp2_decode(r, model, choice).verdict == verdict);
  }
}

TEST_CASE("curve reading: P2P on and off of the same GPUs: the large-message gap and the path") {
  // Synthetic: 8 us + S / 20 GB/s (P2P) against 12 us + S / 4 GB/s (staged): the bandwidth gap is 5x.
  const CurveReading p2p = read_curve(synthetic_log("p2p.log", 8e-6, 20e9), "PIX");
  const CurveReading staged = read_curve(synthetic_log("nop2p.log", 12e-6, 4e9), "SHM");
  const std::vector<ModeGap> gaps = mode_gaps({p2p, staged});
  REQUIRE(gaps.size() == 1);
  CHECK(gaps[0].p2p_file == "p2p.log");
  CHECK(gaps[0].bw_ratio == doctest::Approx(5).scale(0).epsilon(0.01));
  // At 1 GiB: (12 us + 1 GiB / 4 GB/s) / (8 us + 1 GiB / 20 GB/s).
  const double s = 1024.0 * 1024 * 1024;
  CHECK(gaps[0].time_ratio == doctest::Approx((12e-6 + s / 4e9) / (8e-6 + s / 20e9)).scale(0));
  CHECK(gaps[0].explanation.find("host-staged") != std::string::npos);
  CHECK(gaps[0].explanation.find("one PCIe switch") != std::string::npos);
  // Different GPUs are not a pair.
  fit::NcclLog other = synthetic_log("other.log", 12e-6, 4e9);
  other.gpu_name = "NVIDIA A100-SXM4-80GB";
  CHECK(mode_gaps({p2p, read_curve(other, "SHM")}).empty());
}

TEST_CASE("curve reading: the SVG is XML with measured, fitted and alpha-BW series and the knee and S* marked") {
  const fit::NcclLog log = recorded_log(ROOT + "/calibrate/recorded/2x-rtx2080ti-pcie-pix-no-p2p.log");
  CurveReport report;
  LogReading l;
  l.curve = read_curve(log, "SHM");
  l.model_curve_name = "fitted";
  for (const auto& p : l.curve.points) l.model_curve.emplace_back(p.size_B, p.time_s * 1.01);
  report.logs.push_back(l);
  const std::string svg = render_curve_svg(report);
  pugi::xml_document doc;
  REQUIRE(doc.load_string(svg.c_str()));
  std::map<std::string, int> circles, paths;
  int marks = 0;
  for (const auto& node : doc.select_nodes("//*[@data-series]")) {
    const std::string name = node.node().attribute("data-series").value(), tag = node.node().name();
    (tag == "circle" ? circles : paths)[name]++;
  }
  for (const auto& node : doc.select_nodes("//line[@class='mark']")) marks += !node.node().empty();
  // 28 measured sizes, once as busbw and once as time; one line each for the fitted curve and Eq. 1.4.3.
  CHECK(circles["measured busbw"] == 28);
  CHECK(circles["measured"] == 28);
  CHECK(paths["fitted busbw"] == 1);
  CHECK(paths["fitted"] == 1);
  CHECK(paths["Eq. 1.4.3 alpha-BW"] == 2);
  CHECK(marks == 4);  // knee and S* on both charts
  // Both modes of one box in one plot: each log's series and marks, named log1 and log2.
  CurveReport both;
  for (auto [file, latency, bw] : {std::tuple{"p2p.log", 8e-6, 20e9}, std::tuple{"nop2p.log", 12e-6, 4e9}}) {
    LogReading mode;
    mode.curve = read_curve(synthetic_log(file, latency, bw), "");
    both.logs.push_back(mode);
  }
  pugi::xml_document two;
  REQUIRE(two.load_string(render_curve_svg(both).c_str()));
  for (const char* series : {"log1 measured", "log2 measured", "log1 measured busbw", "log2 measured busbw"})
    CHECK(two.select_nodes(fmt::format("//circle[@data-series='{}']", series).c_str()).size() == 21);  // 1 KiB .. 1 GiB by 2x
  CHECK(two.select_nodes("//line[@class='mark']").size() == 8);
  // Bus bandwidth is labelled as such, with algbw's relation to it.
  CHECK(svg.find("bus bandwidth (GB/s, log scale; algbw = busbw / f, f = 2(N-1)/N)") != std::string::npos);
}

TEST_CASE("curve reading: a log with no curve to read is a located error") {
  fit::NcclLog one = synthetic_log("one-rank.log", 5e-6, 1e9);
  one.nranks = 1;
  CHECK_THROWS_WITH_AS(read_curve(one, ""), "one-rank.log: error: no curve to read: the log ran 1 rank(s); the knee needs 2 or more", InputError);
  fit::NcclLog short_log = synthetic_log("short.log", 5e-6, 1e9);
  short_log.rows.resize(3);
  CHECK_THROWS_WITH_AS(read_curve(short_log, ""), "short.log: error: no curve to read: 3 sizes with a time, the knee needs 4 or more", InputError);
}
