#include "curve_report.hpp"

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tpsim {
namespace {

using json = nlohmann::ordered_json;

// "8 KiB", "30.1 KiB", "1 GiB": binary units, up to one decimal.
std::string size_text(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  return std::abs(b - std::round(b)) < 0.05 ? fmt::format("{:.0f} {}", b, units[u]) : fmt::format("{:.1f} {}", b, units[u]);
}

std::string curve_lines(const CurveReading& c) {
  // The steps a latency term counts (curve_reading.cpp latency_steps): a send/recv is one hop, each rank's at once.
  const std::string n1 = c.op == CollectiveOp::all_reduce ? "2(N-1)" : c.op == CollectiveOp::send_recv ? "1" : "(N-1)";
  std::string out = fmt::format("#   latency floor {:.2f} us: median of {} sizes, {} to {} (up to the largest size within 10% of the smallest time)\n",
                                c.floor_s * 1e6, c.floor_rows, size_text(c.floor_min_B), size_text(c.floor_max_B));
  if (!c.floor_reached)
    out += fmt::format("#   note: the log starts at {} ({:.0f}% of the plateau's bus bandwidth), too large to show the latency floor (a floor "
                       "needs a first size of {} or less, mostly latency): the floor, alpha and S* are upper bounds, and smaller sizes are "
                       "extrapolated from them\n",
                       size_text(c.points.front().size_B), c.points.front().bus_bw_Bps / c.bus_bw_Bps * 100, size_text(FLOOR_MAX_B));
  out += fmt::format("#   alpha = floor / {} = {:.2f} us per step (Eq. 1.4.3: latency term {}·alpha, N = {}){}\n", n1, c.alpha_s * 1e6, n1,
                     c.nranks, c.floor_reached ? "" : ", an upper bound");
  out += fmt::format("#   large-message bandwidth: bus {:.2f} GB/s (busbw, the BW of Eq. 1.4.3), algorithm {:.2f} GB/s (algbw = busbw / {:.3g}); "
                     "median of {} sizes, {} to {} (within 10% of the peak bus bandwidth){}\n",
                     c.bus_bw_Bps / 1e9, c.alg_bw_Bps / 1e9, c.bus_factor, c.bw_rows, size_text(c.bw_min_B), size_text(c.bw_max_B),
                     c.plateau_at_end ? "" : "; note: the curve falls after its peak, the largest sizes are slower");
  const std::string knee = c.knee_B ? fmt::format("{} ({:.0f} B)", size_text(*c.knee_B), *c.knee_B) : "not reached by the log's sizes";
  out += fmt::format("#   knee (measured time reaches 2 x floor for good: latency and bandwidth terms equal) {}; S* = N·alpha·BW (Eq. 1.4.4) = {} x {:.2f} us x {:.2f} GB/s = {} ({:.0f} B)",
                     knee, c.nranks, c.alpha_s * 1e6, c.bus_bw_Bps / 1e9, size_text(c.s_star_B), c.s_star_B);
  out += c.knee_B ? fmt::format("; knee / S* = {:.2f}\n", *c.knee_B / c.s_star_B) : "\n";
  out += fmt::format("#   time within 10% of the floor up to {}, within 10% of pure bandwidth (S·{:.3g}/BW) from {}{}\n", size_text(c.latency_like_B),
                     c.bus_factor, size_text(c.bandwidth_like_B),
                     c.half_bw_B ? fmt::format("; busbw reaches half of BW at {}", size_text(*c.half_bw_B)) : "");
  return out;
}

std::string regime_lines(const std::string& model, const std::vector<CollectiveRegime>& regimes) {
  if (regimes.empty()) return "";
  std::string out = fmt::format("#   {} all-reduces (B·d·s bytes) on this curve:\n", model);
  for (const auto& g : regimes)
    out += fmt::format("#     {:<20} {:>10}: {:9.2f} us {}, {} (the floor is {:.0f}% of it)\n", g.what, size_text(g.size_B), g.time_s * 1e6,
                       g.extrapolated ? "extrapolated" : "measured", g.latency_bound ? "latency-bound" : "bandwidth-bound", g.latency_share * 100);
  return out;
}

std::string estimate_lines(const DecodeEstimate& e) {
  const std::string formula = e.collectives == 2 * e.layers ? "M_w / (4 L B_mem)" : fmt::format("M_w / (2 x {} all-reduces x B_mem)", e.collectives);
  std::string out = fmt::format("#   Eq. 1.4.7: alpha* = {} = {:.2f} GB / ({} x {:.1f} GB/s) = {:.1f} us; GPU {} ({}), B_mem {} GB/s ({})\n", formula,
                                e.weight_B / 1e9, e.collectives == 2 * e.layers ? fmt::format("4 x {}", e.layers) : fmt::format("2 x {}", e.collectives),
                                e.gpu.hbm_Bps / 1e9, e.alpha_star_s * 1e6, e.gpu.spec->name, e.gpu.source, fmt::format("{:.1f}", e.gpu.hbm_Bps / 1e9),
                                e.gpu.hbm_source);
  out += fmt::format("#   measured alpha_eff = one {} all-reduce (decode B=1) = {:.2f} us{} on {} ranks{}\n", size_text(e.decode_size_B), e.alpha_eff_s * 1e6,
                     e.alpha_extrapolated ? " (extrapolated)" : "", e.measured_ranks,
                     e.measured_ranks == 2 ? "" : " (not 2: a TP=2 group runs fewer steps; the simulated step below extrapolates)");
  out += fmt::format("#   verdict: {}: alpha* / alpha_eff = {:.2f} (too close to call when it is between {:.2f} and {:.2f})\n", e.verdict, e.margin,
                     1 / TOO_CLOSE_FACTOR, TOO_CLOSE_FACTOR);
  out += fmt::format("#   one-line decode step: TP=1 = M_w / B_mem = {:.2f} ms; TP=2 = M_w / (2 B_mem) + {} x alpha_eff = {:.2f} + {:.2f} = {:.2f} ms; "
                     "speedup {:.2f}x\n",
                     e.tp1_s * 1e3, e.collectives, e.weight_B / (2 * e.gpu.hbm_Bps) * 1e3, e.collectives * e.alpha_eff_s * 1e3, e.tp2_s * 1e3,
                     e.tp1_s / e.tp2_s);
  return out;
}

std::string breakdown_text(const Breakdown& b) {
  return fmt::format("weights {:.2f}, compute {:.2f}, attention {:.2f}, collectives {:.2f}, launch {:.2f}, host {:.2f}", b.weights * 1e3,
                     b.compute * 1e3, b.attention * 1e3, b.collectives * 1e3, b.launch * 1e3, b.host * 1e3);
}

// Where the simulated step departs from the one-line estimate, term by term.
std::string difference_lines(const DecodeEstimate& e, const DecodeSimulation& s, const LogReading& l) {
  std::string fitted;
  for (const auto& [size, t] : l.model_curve)
    if (size == e.decode_size_B) fitted = fmt::format("; the {} curve itself gives {:.2f} us at {}", l.model_curve_name, t * 1e6, size_text(size));
  const double w1 = e.tp1_s, w2 = e.weight_B / (2 * e.gpu.hbm_Bps), c2 = e.collectives * e.alpha_eff_s;
  auto other = [](const Breakdown& b) { return b.compute + b.attention + b.launch + b.host; };
  std::string out = "#   where the line and the simulator differ (simulated - line):\n";
  out += fmt::format("#     TP=1 {:+.2f} ms: weights {:+.2f} (GEMMs at the kernel tables' efficiency, not at B_mem; the embedding rows it needs, not the whole table), attention + compute + launch + host {:+.2f} (the line leaves them out; KV cache of {} tokens)\n",
                     (s.tp1.step.total() - e.tp1_s) * 1e3, (s.tp1.step.weights - w1) * 1e3, other(s.tp1.step) * 1e3, s.context);
  out += fmt::format("#     TP=2 {:+.2f} ms: weights {:+.2f}, collectives {:+.2f} ({} all-reduces at {:.2f} us simulated ({}) vs {:.2f} us measured, "
                     "plus the logits all-gather{}), attention + compute + launch + host {:+.2f}\n",
                     (s.tp2.step.total() - e.tp2_s) * 1e3, (s.tp2.step.weights - w2) * 1e3, (s.tp2.step.collectives - c2) * 1e3, s.tp2.allreduces,
                     s.tp2.per_allreduce_s * 1e6, s.tp2.how, e.alpha_eff_s * 1e6, fitted, other(s.tp2.step) * 1e3);
  const bool line_wins = e.tp2_s < e.tp1_s, sim_wins = s.tp2.step.total() < s.tp1.step.total();
  out += fmt::format("#     {}: line speedup {:.2f}x, simulated {:.2f}x\n",
                     line_wins == sim_wins ? (sim_wins ? "both say TP=2 wins" : "both say TP=2 loses") : "they disagree on the winner", e.tp1_s / e.tp2_s,
                     s.tp1.step.total() / s.tp2.step.total());
  return out;
}

std::string simulation_lines(const LogReading& l) {
  if (!l.simulation) return l.simulation_missing.empty() ? "" : "#   simulated decode step: not run: " + l.simulation_missing + "\n";
  const DecodeSimulation& s = *l.simulation;
  std::string out = fmt::format("#   simulated decode step (B={}, {}-token context) on {}, GPUs {},{}:\n", s.batch, s.context, s.platform, s.gpus[0], s.gpus[1]);
  for (const SimulatedDecode* t : {&s.tp1, &s.tp2})
    out += fmt::format("#     TP={} {:.2f} ms (ms: {})\n", t->tp, t->step.total() * 1e3, breakdown_text(t->step));
  for (const auto& n : s.calibration_use) out += "#     calibration " + n + "\n";
  if (l.estimate) out += difference_lines(*l.estimate, s, l);
  return out;
}

json or_null(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json breakdown_json(const Breakdown& b) {
  return {{"weights", b.weights * 1e3}, {"compute", b.compute * 1e3}, {"attention", b.attention * 1e3},
          {"collectives", b.collectives * 1e3}, {"launch", b.launch * 1e3}, {"host", b.host * 1e3}};
}

json curve_json(const CurveReading& c) {
  return {{"file", c.file},
          {"op", collective_op_name(c.op)},
          {"nranks", c.nranks},
          {"path_class", c.path_class},
          {"gpu_in_log", c.gpu},
          {"alpha_us", c.alpha_s * 1e6},
          {"alpha_definition", c.op == CollectiveOp::all_reduce ? "floor / 2(N-1), Eq. 1.4.3" : "floor / (N-1)"},
          {"floor_us", c.floor_s * 1e6},
          {"floor_reached", c.floor_reached},
          {"floor_sizes_B", {c.floor_min_B, c.floor_max_B}},
          {"bus_bw_GBps", c.bus_bw_Bps / 1e9},
          {"alg_bw_GBps", c.alg_bw_Bps / 1e9},
          {"bus_factor", c.bus_factor},
          {"bw_sizes_B", {c.bw_min_B, c.bw_max_B}},
          {"knee_B", or_null(c.knee_B)},
          {"knee_definition", "from this size on the measured time stays >= 2 x floor (log-log interpolation)"},
          {"s_star_B", c.s_star_B},
          {"half_bw_B", or_null(c.half_bw_B)},
          {"latency_like_max_B", c.latency_like_B},
          {"bandwidth_like_min_B", c.bandwidth_like_B}};
}

json log_json(const LogReading& l) {
  json j = curve_json(l.curve);
  json regimes = json::array();
  for (const auto& g : l.regimes)
    regimes.push_back({{"what", g.what}, {"size_B", g.size_B}, {"time_us", g.time_s * 1e6}, {"extrapolated", g.extrapolated},
                       {"regime", g.latency_bound ? "latency-bound" : "bandwidth-bound"}, {"latency_share", g.latency_share}});
  j["allreduce_regimes"] = regimes;
  if (l.estimate) {
    const DecodeEstimate& e = *l.estimate;
    j["alpha_eff_us"] = e.alpha_eff_s * 1e6;
    j["alpha_star_us"] = e.alpha_star_s * 1e6;
    j["tp2_decode_verdict"] = e.verdict;
    j["tp2_margin"] = e.margin;
    j["gpu"] = e.gpu.spec->name;
    j["gpu_source"] = e.gpu.source;
    j["hbm_GBps"] = e.gpu.hbm_Bps / 1e9;
    j["hbm_source"] = e.gpu.hbm_source;
    j["one_line_decode_ms"] = {{"tp1", e.tp1_s * 1e3}, {"tp2", e.tp2_s * 1e3}};
  } else {
    j["alpha_star_us"] = nullptr;
    j["tp2_decode_verdict"] = "not estimated: " + l.estimate_missing;
  }
  if (l.simulation) {
    const DecodeSimulation& s = *l.simulation;
    j["simulated_decode"] = {{"platform", s.platform}, {"gpus", s.gpus}, {"batch", s.batch}, {"context_tokens", s.context},
                             {"tp1_ms", s.tp1.step.total() * 1e3}, {"tp2_ms", s.tp2.step.total() * 1e3},
                             {"tp1_breakdown_ms", breakdown_json(s.tp1.step)}, {"tp2_breakdown_ms", breakdown_json(s.tp2.step)},
                             {"allreduce_us", s.tp2.per_allreduce_s * 1e6}, {"calibration_use", s.calibration_use}};
  } else {
    j["simulated_decode"] = nullptr;
    j["simulated_decode_missing"] = l.simulation_missing;
  }
  j["notes"] = l.notes;
  return j;
}

json report_json(const CurveReport& r) {
  json logs = json::array(), gaps = json::array();
  for (const auto& l : r.logs) logs.push_back(log_json(l));
  for (const auto& g : r.gaps)
    gaps.push_back({{"p2p_log", g.p2p_file}, {"staged_log", g.staged_file}, {"bus_bw_ratio", g.bw_ratio}, {"size_B", g.size_B},
                    {"time_ratio", g.time_ratio}, {"explanation", g.explanation}});
  return {{"model", r.model.empty() ? json(nullptr) : json(r.model)}, {"model_card", r.model_path}, {"logs", logs}, {"mode_gaps", gaps}, {"unread", r.unread}};
}

}  // namespace

std::string render_curve_text(const CurveReport& r) {
  std::string out;
  for (const auto& l : r.logs) {
    out += fmt::format("# reading {} ({}, {} ranks, {}), as chapter 1.4 teaches:\n", l.curve.file, collective_op_name(l.curve.op), l.curve.nranks,
                       l.curve.path_class.empty() ? "path class unknown" : l.curve.path_class);
    out += curve_lines(l.curve);
    out += regime_lines(r.model, l.regimes);
    if (l.estimate) out += estimate_lines(*l.estimate);
    else if (!l.estimate_missing.empty()) out += "#   TP=2 decode verdict: not estimated: " + l.estimate_missing + "\n";
    out += simulation_lines(l);
    for (const auto& n : l.notes) out += "#   note: " + n + "\n";
  }
  for (const auto& u : r.unread) out += "# not read: " + u + "\n";
  for (const auto& g : r.gaps)
    out += fmt::format("# P2P on vs off: {} vs {}: bus bandwidth {:.2f}x at large sizes, {:.2f}x the time at {}; {}\n", g.p2p_file, g.staged_file,
                       g.bw_ratio, g.time_ratio, size_text(g.size_B), g.explanation);
  return out;
}

std::string render_curve_json(const CurveReport& r) { return report_json(r).dump(2) + "\n"; }

std::string merge_curve_json(const std::string& json_text, const CurveReport& r) {
  json j = json::parse(json_text);
  const json reading = report_json(r);
  for (auto it = reading.begin(); it != reading.end(); ++it) j[it.key()] = *it;
  return j.dump(2) + "\n";
}

}  // namespace tpsim
