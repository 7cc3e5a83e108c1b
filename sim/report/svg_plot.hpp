// Line charts as SVG: labelled axes with units, linear or logarithmic (decades) on either axis,
// series drawn as lines, dots or both, and vertical marks (a knee, a crossover). Used for sweeps
// (one line per configuration) and for measured collective curves (curve_plot.cpp).
#pragma once
#include <string>
#include <vector>

#include "model/results.hpp"

namespace tpsim {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y); y <= 0 or NaN points are skipped (and x <= 0 on a log x axis)
  bool line = true;      // join the points
  bool dots = true;      // a circle per point
  bool dashed = false;
  int colour = -1;       // index into the palette; -1: the series' own index
};

// A vertical line at x with a label (dashed).
struct ChartMark {
  double x = 0;
  std::string label;
  int colour = -1;
};

struct ChartSpec {
  std::string title, x_label, y_label;
  std::vector<Series> series;
  bool log_x = false, log_y = false;
  std::vector<ChartMark> marks;
};

// One self-contained SVG document holding the charts one above the other.
std::string svg_document(const std::vector<ChartSpec>& charts);

// A self-contained SVG document; a logarithmic y axis when `log_y`.
std::string svg_line_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<Series>& series, bool log_y);

// The charts of a sweep: (file name, SVG) for TTFT p99, TPOT p99 and throughput per GPU.
std::vector<std::pair<std::string, std::string>> sweep_charts(const ScenarioResult& r);

}  // namespace tpsim
