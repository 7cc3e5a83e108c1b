// Collective curve fit, piecewise model: one robust line per run of sizes, dynamic programming
// over the cuts, and the choice between the pieces and the envelope (fitted in collective_fit.cpp).
#include <algorithm>

#include "collective_fit_parts.hpp"
#include "nelder_mead.hpp"

namespace tpsim::fit::detail {
namespace {

// Model choice (chosen_piece_count), a Bayesian information criterion on the robust loss:
//   n ln(loss / n + LOSS_FLOOR) + ln(n) * p     over n sizes, the least wins
// p = 2 per envelope line that wins at a measured size (latency, bandwidth), 3 per piece
// (latency, bandwidth, max_size: the last piece's bound counts too, which leans the choice to
// the envelope). LOSS_FLOOR = huber(0.1%), the loss per size below which a fit only follows
// nccl-tests' print rounding (4 significant digits: 941.7 us); it keeps pieces of 2 sizes,
// fitted exactly, from scoring minus infinity. On the recorded logs: RTX 2080 Ti envelope
// -188.4, 2 pieces -187.2 (with 3k - 1 parameters for k pieces the pieces would win, their
// jump lowering the loss by 18%); DGX H100 envelope -158.0, 3 pieces -153.3; OCI RoCE envelope
// -131.3, 3 pieces -142.4, 4: -144.6, 5: -150.2, 6: -166.4.
constexpr double ENVELOPE_PARAMETERS_PER_LINE = 2;
constexpr double PIECE_PARAMETERS = 3;
constexpr double LOSS_FLOOR = 0.5 * 1e-3 * 1e-3;

// A piece holds 2 measured sizes at least, so that its line is determined.
constexpr std::size_t MIN_PIECE_POINTS = 2;

Line fit_line_robust(const std::vector<Sample>& s, double f, std::size_t lo, std::size_t hi) {
  auto objective = [&](const std::vector<double>& x) {
    double sum = 0;
    for (std::size_t i = lo; i < hi; ++i)
      sum += huber(std::log((std::exp(x[0]) + s[i].size_B * std::exp(x[1])) / s[i].time_s));
    return sum;
  };
  auto [L, a] = fit_line(s, lo, hi);
  std::vector<double> x = nelder_mead(objective, {std::log(L), std::log(a)}, 0.3);
  return {std::exp(x[0]), f / std::exp(x[1]), objective(x)};
}

// The Bayesian information criterion on the robust loss, n ln(loss / n + LOSS_FLOOR) + ln(n) p,
// over n sizes with p parameters.
double information(double loss, std::size_t n, double parameters) {
  const double m = static_cast<double>(n);
  return m * std::log(loss / m + LOSS_FLOOR) + std::log(m) * parameters;
}

}  // namespace

LineTable fit_all_lines(const std::vector<Sample>& s, double f) {
  const std::size_t n = s.size();
  LineTable lines(n + 1, std::vector<Line>(n + 1));
  for (std::size_t lo = 0; lo < n; ++lo)
    for (std::size_t hi = lo + MIN_PIECE_POINTS; hi <= n; ++hi) lines[lo][hi] = fit_line_robust(s, f, lo, hi);
  return lines;
}

// For k = 1..max_k, the cut into k pieces with the least total loss (cuts[k-1]; loss
// INFINITY when the samples cannot hold k pieces). Dynamic programming over
//   best[k][j] = min over i of best[k-1][i] + lines[i][j].loss,
// the least loss of covering [0, j) with k pieces; ties keep the smallest i.
std::vector<Cut> best_cuts(const LineTable& lines, std::size_t n, int max_k) {
  const std::size_t K = static_cast<std::size_t>(max_k);
  std::vector<std::vector<double>> best(K + 1, std::vector<double>(n + 1, INFINITY));
  std::vector<std::vector<std::size_t>> from(K + 1, std::vector<std::size_t>(n + 1, 0));
  best[0][0] = 0;
  for (std::size_t k = 1; k <= K; ++k)
    for (std::size_t j = MIN_PIECE_POINTS; j <= n; ++j)
      for (std::size_t i = 0; i + MIN_PIECE_POINTS <= j; ++i) {
        const double v = best[k - 1][i] + lines[i][j].loss;
        if (v < best[k][j]) best[k][j] = v, from[k][j] = i;
      }
  std::vector<Cut> cuts(K);
  for (std::size_t k = 1; k <= K; ++k) {
    Cut& c = cuts[k - 1];
    c.loss = best[k][n];
    if (!std::isfinite(c.loss)) continue;
    c.ends.resize(k);
    for (std::size_t j = n, m = k; m > 0; j = from[m][j], --m) c.ends[m - 1] = j;
  }
  return cuts;
}

// The pieces of `cut`, labelled in size order.
std::vector<PieceFit> make_pieces(const Cut& cut, const LineTable& lines, const std::vector<Sample>& s,
                                  const std::vector<std::pair<Algorithm, Protocol>>& labels) {
  std::vector<PieceFit> pieces;
  std::size_t lo = 0;
  for (std::size_t i = 0; i < cut.ends.size(); ++i) {
    const std::size_t hi = cut.ends[i];
    const bool last = i + 1 == cut.ends.size();
    pieces.push_back({labels[i].first, labels[i].second, lines[lo][hi].latency_s, lines[lo][hi].bus_bw_Bps,
                      last ? INFINITY : s[hi - 1].size_B});
    lo = hi;
  }
  return pieces;
}

// The piece count with the least information criterion; 0 for the envelope, which wins ties,
// as fewer pieces do.
int chosen_piece_count(const Model& envelope, const std::vector<Cut>& cuts, std::size_t n) {
  const auto lines = std::count(envelope.runs.begin(), envelope.runs.end(), true);
  double best = information(envelope.loss, n, ENVELOPE_PARAMETERS_PER_LINE * static_cast<double>(lines));
  int chosen = 0;
  for (std::size_t k = 1; k <= cuts.size(); ++k) {
    const double v = information(cuts[k - 1].loss, n, PIECE_PARAMETERS * static_cast<double>(k));
    if (v < best) best = v, chosen = static_cast<int>(k);
  }
  return chosen;
}

}  // namespace tpsim::fit::detail
