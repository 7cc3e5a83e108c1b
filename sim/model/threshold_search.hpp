// The nearest value of one input, from the scenario's own value toward a limit, at which the
// winner changes. A coarse scan (SCAN_POINTS points, evenly spaced in log scale when both ends
// are positive, else linearly) finds the first point with another winner; bisection between it
// and the point before narrows the change to REL_TOLERANCE of the value (or to adjacent whole
// numbers). A change and a change back inside one scan interval are not seen.
#pragma once
#include <functional>
#include <optional>
#include <string>

namespace tpsim {

constexpr int SCAN_POINTS = 5;
constexpr double REL_TOLERANCE = 0.01;
constexpr int MAX_BISECTIONS = 10;

struct SearchRange {
  double base = 0;     // the scenario's value
  double limit = 0;    // how far to search (above or below base)
  // Snaps a value to one the input can take (whole tokens, a whole number of layers); identity by default.
  std::function<double(double)> snap = [](double v) { return v; };
};

struct SearchResult {
  std::optional<double> threshold;  // the first value (from base) with another winner, snapped
  std::string to;                   // its winner
  double last_same = 0;             // the last value known to keep the base winner
  int evaluations = 0;
};

// `winner(v)`: the winner with the input at v. The base's winner is `base_winner` (not evaluated).
SearchResult find_change(const SearchRange& range, const std::string& base_winner, const std::function<std::string(double)>& winner);

}  // namespace tpsim
