// Line charts as SVG for sweeps: one line per configuration, labelled axes with units.
#pragma once
#include <string>
#include <vector>

#include "model/results.hpp"

namespace tpsim {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y); y <= 0 or NaN points are skipped
};

// A self-contained SVG document; a logarithmic y axis when `log_y`.
std::string svg_line_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<Series>& series, bool log_y);

// The charts of a sweep: (file name, SVG) for TTFT p99, TPOT p99 and throughput per GPU.
std::vector<std::pair<std::string, std::string>> sweep_charts(const ScenarioResult& r);

}  // namespace tpsim
