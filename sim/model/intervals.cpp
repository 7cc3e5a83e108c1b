#include "intervals.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace tpsim {
namespace {

// The project's documented validation spreads (median |error|), for figures resting on defaults.
// README "Validation", serving against NVIDIA's NeMo/TensorRT-LLM Llama-2-7B latencies, TP=2/4/8:
constexpr double GPU_DATASHEET = 0.034;   // DGX A100, default kernel surface, no calibration (1.1% before session 45, 1.7% before 28)
constexpr double GPU_CALIBRATED = 0.033;  // DGX H100, calibrated (all-reduce log + measured GEMM times; 3.5% before session 45, 3.2% before 35)
// README "Validation" and calibrate/README.md "Leave one box out", `tpsim collective --compare`:
constexpr double COLL_DEFAULT = 0.080;    // median over the ten recorded logs of the uncalibrated median error
constexpr double COLL_OTHER_BOX = 0.028;  // median of the 44 calibrated-from-another-box errors (3.1% before session 41, 5.6% before 28, 7.2% before 25)
// Across nodes, uncalibrated, the three recorded cross-node logs run slower than simulated (signed
// median errors over their sizes >= 1 KiB -0.2%, -13.2%, -53.15% since session 42's NVLS-tree fill
// by chunk, which runs the A3 Mega's mid sizes on NVLS-tree; -0.2%, -8.5%, -52.6% from session 28;
// -0.4%, -15.5%, -55.5% before session 24's tree fill; the other way at a few sizes, at most +30.0%):
// real time may be longer by their median, 1 / (1 - 0.132) - 1 = 15.2%; the short side keeps the
// one-node spread (COLL_DEFAULT).
constexpr double COLL_NETWORK_SLOWER = 0.152;
// Host-staged at the default copy rates: the median, over the published P2P-off boxes of
// tests/data/measured/p2p_off_plateaus.csv on the same side of the socket, of the factor between the
// default rate and the box's plateau, max(d / p, p / d) (tests/unit/staged_spread_test.cpp recomputes
// both). Within a socket (4.0 GB/s host copy, 9 boxes: 1.00-6.78) 1.29; across sockets (1.44 GB/s
// socket copy, 4 boxes: 1.02, 1.35, 3.48, 10.3) 2.42: the socket crossing is the less known stage.
// Before session 44 one factor over all 13 boxes, 1.30, gave a cross-socket run the within-socket spread.
// Staged times move by this factor either way: their spread is a ratio, not a difference.
struct StagedSpread {
  double factor;
  const char *side, *boxes, *range;
};
constexpr StagedSpread STAGED_WITHIN{1.29, "", "within a socket, 9 of them", "0.64x to 6.8x the 4.0 GB/s host copy"};
constexpr StagedSpread STAGED_ACROSS{2.42, " across sockets", "that cross sockets, 4 of them", "0.74x to 10x the 1.44 GB/s socket copy"};

Spread symmetric(double value, std::string source) { return {value, value, std::move(source)}; }

bool any_note(const std::vector<std::string>& notes, const std::string& status) {
  return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.rfind(status + ":", 0) == 0; });
}

// Whether the decode or the prefill collective of `c` satisfies `holds`.
template <class Pred>
bool either_collective(const ConfigResult& c, Pred holds) {
  return (c.decode_collective && holds(*c.decode_collective)) || (c.prefill_collective && holds(*c.prefill_collective));
}

// The step with its GPU part and its collective part moved by the relative amounts gpu and coll
// (negative: faster).
double moved(const Breakdown& b, double gpu, double coll) {
  return (b.total() - b.collectives) * (1 + gpu) + b.collectives * (1 + coll);
}

Interval ratio(const Breakdown& b, double gpu, const Spread& coll) {
  const double t = b.total();
  if (!(t > 0)) return {1, 1};
  return {moved(b, -gpu, -coll.down) / t, moved(b, gpu, coll.up) / t};
}

// The objective's figure at the low and the high end (lower is better for every figure but
// throughput and SLO goodput, which flip).
Interval objective_interval(const ConfigResult& c, const std::string& objective, double* value) {
  const FigureBounds& b = *c.bounds;
  if (objective == "ttft") return *value = c.ttft_s.p50, b.ttft_p50_s;
  if (objective == "tpot") return *value = c.tpot_s.p50, b.tpot_p50_s;
  if (objective == "throughput") return *value = -c.throughput_tok_s_per_gpu, Interval{-b.throughput_tok_s_per_gpu.high, -b.throughput_tok_s_per_gpu.low};
  if (objective == "slo") {
    *value = -c.goodput_req_s;
    return {-c.goodput_req_s / b.e2e_p50_s.low * c.e2e_s.p50, -c.goodput_req_s / b.e2e_p50_s.high * c.e2e_s.p50};
  }
  return *value = c.e2e_s.p50, b.e2e_p50_s;
}

// The objective's figure at the winner's unfavourable end (`worst`) or a rival's favourable end.
std::string objective_metric_interval(const ConfigResult& c, const std::string& objective, bool worst) {
  const FigureBounds& b = *c.bounds;
  auto end = [&](const Interval& i) { return worst ? i.high : i.low; };
  if (objective == "ttft") return fmt::format("TTFT p50 {:.1f} ms", end(b.ttft_p50_s) * 1e3);
  if (objective == "tpot") return fmt::format("TPOT p50 {:.2f} ms", end(b.tpot_p50_s) * 1e3);
  if (objective == "throughput")
    return fmt::format("{:.1f} output tok/s per GPU", (worst ? b.throughput_tok_s_per_gpu.low : b.throughput_tok_s_per_gpu.high));
  if (objective == "slo") {
    const double e2e = worst ? b.e2e_p50_s.high : b.e2e_p50_s.low;
    return fmt::format("goodput {:.2f} req/s", e2e > 0 ? c.goodput_req_s * c.e2e_s.p50 / e2e : 0);
  }
  return fmt::format("end-to-end latency p50 {:.1f} ms", end(b.e2e_p50_s) * 1e3);
}

}  // namespace

Spread gpu_time_spread(const Calibration* cal) {
  if (cal && !cal->gemm.empty())
    return symmetric(GPU_CALIBRATED, fmt::format("GPU time from the calibration's GEMM table: ±{:.1f}%, README \"Validation\" (DGX H100 calibrated, TP=2/4/8 median |error| against NeMo)", GPU_CALIBRATED * 100));
  return symmetric(GPU_DATASHEET, fmt::format("GPU time from datasheet defaults: ±{:.1f}%, README \"Validation\" (DGX A100, default kernel surface, TP=2/4/8 median |error| against NeMo)", GPU_DATASHEET * 100));
}

Spread collective_spread(const ConfigResult& c, const Calibration* cal, const std::vector<std::string>& notes, bool copy_rates_given) {
  const bool network = either_collective(c, [](const CollectivePlan& p) { return p.worst_class == PathClass::NET; });
  if (cal && either_collective(c, [](const CollectivePlan& p) { return p.calibrated; })) {
    if (any_note(notes, "extrapolated") || any_note(notes, "default"))
      return symmetric(COLL_OTHER_BOX, fmt::format("collectives calibrated on another group or box: ±{:.1f}%, calibrate/README.md \"Leave one box out\" (median of 44 pairs)", COLL_OTHER_BOX * 100));
    double worst_median = 0;
    for (const auto& e : cal->collectives) worst_median = std::max(worst_median, e.residual_median.value_or(COLL_OTHER_BOX));
    return symmetric(worst_median, fmt::format("collectives within the calibration's envelope: ±{:.1f}%, the largest median fit residual of {}",
                                               worst_median * 100, cal->file));
  }
  if (!copy_rates_given && either_collective(c, [](const CollectivePlan& p) { return p.staged; })) {
    const StagedSpread& st =
        either_collective(c, [](const CollectivePlan& p) { return p.staged_across_sockets; }) ? STAGED_ACROSS : STAGED_WITHIN;
    return {1 - 1 / st.factor, st.factor - 1,
            fmt::format("collectives staged through host memory at the default copy rates{}: ×/÷{:.3g} (-{:.1f}%/+{:.1f}%) on their bandwidth "
                        "term, the median factor between those rates and the plateaus of the published P2P-off boxes {} "
                        "(tests/data/measured/p2p_off_plateaus.csv: {}); their latency term ±{:.1f}% (the staged floors, 11.8 / 23.4 / 38.8 us "
                        "measured, read 11.7 / 21.5 / 41.1)",
                        st.side, st.factor, (1 - 1 / st.factor) * 100, (st.factor - 1) * 100, st.boxes, st.range, COLL_DEFAULT * 100),
            true};
  }
  if (network)
    return {COLL_DEFAULT, COLL_NETWORK_SLOWER,
            fmt::format("collectives across nodes, defaults: -{:.1f}%/+{:.1f}%, README \"Validation\" (the three recorded cross-node logs run "
                        "slower than simulated, their median by {:.1f}%; none faster by more than 0.1%, so the short side keeps the one-node {:.1f}%)",
                        COLL_DEFAULT * 100, COLL_NETWORK_SLOWER * 100, COLL_NETWORK_SLOWER * 100, COLL_DEFAULT * 100)};
  return symmetric(COLL_DEFAULT, fmt::format("collectives from defaults: ±{:.1f}%, README \"Validation\" / calibrate/README.md (median over the ten recorded logs, uncalibrated)", COLL_DEFAULT * 100));
}

Spread phase_spread(const Spread& s, const std::optional<CollectivePlan>& plan) {
  if (!s.bandwidth_only || !plan || !(plan->time_s() > 0)) return s;
  const double share = plan->bandwidth_s / plan->time_s();
  return {share * s.down + (1 - share) * COLL_DEFAULT, share * s.up + (1 - share) * COLL_DEFAULT, s.source};
}

FigureBounds bounds_of(const ConfigResult& c, double gpu, const Spread& coll) {
  FigureBounds b;
  b.gpu_spread = gpu, b.collective_spread_down = coll.down, b.collective_spread_up = coll.up;
  b.prefill_ratio = ratio(c.prefill, gpu, phase_spread(coll, c.prefill_collective));
  b.decode_ratio = ratio(c.decode_step, gpu, phase_spread(coll, c.decode_collective));
  b.prefill_s = {c.prefill.total() * b.prefill_ratio.low, c.prefill.total() * b.prefill_ratio.high};
  b.decode_step_s = {c.decode_step.total() * b.decode_ratio.low, c.decode_step.total() * b.decode_ratio.high};
  b.ttft_p50_s = {c.ttft_s.p50 * b.prefill_ratio.low, c.ttft_s.p50 * b.prefill_ratio.high};
  b.tpot_p50_s = {c.tpot_s.p50 * b.decode_ratio.low, c.tpot_s.p50 * b.decode_ratio.high};
  const double decode_part = std::max(0.0, c.e2e_s.p50 - c.ttft_s.p50);
  b.e2e_p50_s = {b.ttft_p50_s.low + decode_part * b.decode_ratio.low, b.ttft_p50_s.high + decode_part * b.decode_ratio.high};
  const double e2e = c.e2e_s.p50;
  if (e2e > 0) b.throughput_tok_s_per_gpu = {c.throughput_tok_s_per_gpu * e2e / b.e2e_p50_s.high, c.throughput_tok_s_per_gpu * e2e / b.e2e_p50_s.low};
  return b;
}

std::string confidence_of(const std::vector<ConfigResult>& configs, const std::string& winner, const std::string& objective,
                          std::string* why) {
  const ConfigResult* win = nullptr;
  for (const auto& c : configs)
    if (c.name == winner && c.bounds) win = &c;
  if (!win) return *why = "no configuration fits", "too close to call";
  double wv = 0;
  const Interval w = objective_interval(*win, objective, &wv);
  const ConfigResult* closest = nullptr;
  double margin = std::numeric_limits<double>::infinity();
  for (const auto& c : configs) {
    if (&c == win || !c.bounds || !c.memory.fits || c.requests_completed == 0) continue;
    double v = 0;
    const Interval o = objective_interval(c, objective, &v);
    if (o.low - w.high < margin) margin = o.low - w.high, closest = &c;
  }
  if (!closest) return *why = winner + " is the only configuration that fits", "robust";
  const bool robust = margin > 0;
  *why = fmt::format("{} at its worst ({}) against {} at its best ({}): {}", winner, objective_metric_interval(*win, objective, true),
                     closest->name, objective_metric_interval(*closest, objective, false),
                     robust ? "the winner holds across the intervals" : "the intervals overlap");
  return robust ? "robust" : "too close to call";
}

std::vector<std::string> grounding_of(const Calibration* cal, const std::string& gpu_model, const Spread& gpu,
                                      const std::vector<Spread>& collectives) {
  std::vector<std::string> g;
  if (!cal) {
    g.push_back(fmt::format("datasheet defaults: no calibration file; {} from tpsim's GPU table (sim/config/gpu_catalog.cpp), "
                            "collectives from NCCL's tuning model with latencies drawn from recorded logs (sim/model/collective_defaults.cpp)",
                            gpu_model));
  } else {
    g.push_back(fmt::format("calibration {}{}", cal->file, cal->written_from.empty() ? " (it does not say what it was fitted from)"
                                                                                     : ", fitted by tpsim fit from " + cal->written_from));
    for (const auto& e : cal->collectives)
      g.push_back(fmt::format("  {} {} on {} ranks{} over {}, GPU {}, NCCL {}{}", e.source.empty() ? "a log" : e.source, collective_op_name(e.op), e.nranks,
                              e.nodes > 1 ? fmt::format(" ({} nodes)", e.nodes) : "", e.path_class.empty() ? "an unknown path" : e.path_class,
                              e.gpu.empty() ? "not recorded" : e.gpu, e.nccl_version.empty() ? "not recorded" : e.nccl_version,
                              e.residual_median ? fmt::format(", fit residuals median {:.1f}%", *e.residual_median * 100) : ""));
    if (!cal->gemm.empty())
      g.push_back(fmt::format("  GEMM times: {} measured shapes {}", cal->gemm.size(),
                              !cal->tables_gpu                     ? fmt::format("(the file does not record the GPU; applied as measured to {})", gpu_model)
                              : cal->tables_gpu->name == gpu_model ? fmt::format("on {}", gpu_model)
                                                                   : fmt::format("on {}, carried to {} through each shape's roofline",
                                                                                 cal->tables_gpu->name, gpu_model)));
    if (cal->collectives.empty()) g.push_back("  collectives: none in the file, datasheet defaults");
    if (cal->gemm.empty()) g.push_back(fmt::format("  GEMMs: none in the file, {} datasheet defaults", gpu_model));
  }
  g.push_back("intervals: " + gpu.source);
  std::vector<std::string> seen;
  for (const auto& c : collectives)
    if (std::find(seen.begin(), seen.end(), c.source) == seen.end()) seen.push_back(c.source), g.push_back("intervals: " + c.source);
  return g;
}

void attach_intervals(ScenarioResult& r, const Calibration* cal, bool copy_rates_given) {
  const Spread gpu = gpu_time_spread(cal);
  std::vector<Spread> colls;
  std::string gpu_model;
  for (auto& c : r.configs) {
    if (gpu_model.empty()) gpu_model = c.gpu_model;
    if (!c.memory.fits) continue;
    const Spread coll = collective_spread(c, cal, r.calibration_use, copy_rates_given);
    const bool has_collectives = c.tp > 1 || c.pp > 1;
    if (has_collectives) colls.push_back(coll);
    c.bounds = bounds_of(c, gpu.up, has_collectives ? coll : Spread{});
  }
  r.grounding = grounding_of(cal, gpu_model, gpu, colls);
  if (!r.recommendation.empty()) r.confidence = confidence_of(r.configs, r.recommendation, r.objective, &r.confidence_why);
}

}  // namespace tpsim
