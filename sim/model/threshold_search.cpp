#include "threshold_search.hpp"

#include <cmath>

namespace tpsim {
namespace {

bool logarithmic(double a, double b) { return a > 0 && b > 0; }

double between(double a, double b, double f) {
  return logarithmic(a, b) ? a * std::pow(b / a, f) : a + (b - a) * f;
}

}  // namespace

SearchResult find_change(const SearchRange& r, const std::string& base_winner, const std::function<std::string(double)>& winner) {
  SearchResult out;
  out.last_same = r.base;
  double same = r.base, changed = 0;
  std::string changed_to;
  auto eval = [&](double v) {
    ++out.evaluations;
    return winner(v);
  };
  for (int k = 1; k <= SCAN_POINTS && changed_to.empty(); ++k) {
    const double v = r.snap(between(r.base, r.limit, double(k) / SCAN_POINTS));
    if (v == same) continue;
    const std::string w = eval(v);
    if (w == base_winner) same = v;
    else changed = v, changed_to = w;
  }
  out.last_same = same;
  if (changed_to.empty()) return out;
  for (int i = 0; i < MAX_BISECTIONS; ++i) {
    if (std::fabs(changed - same) <= REL_TOLERANCE * std::max(std::fabs(changed), std::fabs(same))) break;
    const double mid = r.snap(between(same, changed, 0.5));
    if (mid == same || mid == changed) break;
    const std::string w = eval(mid);
    if (w == base_winner) same = mid;
    else changed = mid, changed_to = w;
  }
  out.threshold = changed, out.to = changed_to, out.last_same = same;
  return out;
}

}  // namespace tpsim
