#include "svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <limits>

namespace tpsim {
namespace {

constexpr double W = 760, H = 460, L = 80, R = 220, T = 40, B = 60;  // canvas and margins (px)
const char* COLOURS[] = {"#1b6ac9", "#d1495b", "#2e933c", "#edae49", "#6a4c93", "#00798c", "#8d6a9f", "#444444"};

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

// About five round tick values covering [lo, hi].
std::vector<double> linear_ticks(double lo, double hi) {
  const double raw = (hi - lo) / 5, mag = std::pow(10, std::floor(std::log10(raw)));
  const double step = raw / mag < 2 ? mag : raw / mag < 5 ? 2 * mag : 5 * mag;
  std::vector<double> t;
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) t.push_back(v);
  return t;
}

}  // namespace

std::string svg_line_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<Series>& series, bool log_y) {
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const auto& s : series)
    for (auto [x, y] : s.points)
      if (y > 0 && std::isfinite(y)) x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  if (!std::isfinite(x0)) x0 = 0, x1 = 1, y0 = 1, y1 = 10;
  if (x1 == x0) x1 = x0 + 1;
  if (log_y) y0 = std::pow(10, std::floor(std::log10(y0))), y1 = std::pow(10, std::ceil(std::log10(y1)));
  else y0 = 0, y1 = y1 * 1.1;
  if (y1 <= y0) y1 = y0 * 10 + 1;
  auto px = [&](double x) { return L + (x - x0) / (x1 - x0) * (W - L - R); };
  auto py = [&](double y) {
    const double f = log_y ? (std::log10(y) - std::log10(y0)) / (std::log10(y1) - std::log10(y0)) : (y - y0) / (y1 - y0);
    return H - B - f * (H - T - B);
  };
  std::string svg = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"12\">\n"
                                "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{}\" y=\"24\" font-size=\"15\">{}</text>\n",
                                W, H, L, escape(title));
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"black\"/><line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\" stroke=\"black\"/>\n",
                     L, H - B, W - R, T);
  for (double v : linear_ticks(x0, x1))
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/><text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4:g}</text>\n",
                       px(v), H - B, T, H - B + 16, v);
  std::vector<double> yt;
  if (log_y)
    for (double v = y0; v <= y1 * 1.0001; v *= 10) yt.push_back(v);
  else
    yt = linear_ticks(y0, y1);
  for (double v : yt)
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/><text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:g}</text>\n",
                       L, py(v), W - R, L - 6, py(v) + 4, v);
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (L + W - R) / 2, H - 18, escape(x_label));
  svg += fmt::format("<text transform=\"translate(18,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n", (T + H - B) / 2, escape(y_label));
  for (std::size_t i = 0; i < series.size(); ++i) {
    const char* colour = COLOURS[i % 8];
    std::string path;
    for (auto [x, y] : series[i].points)
      if (y > 0 && std::isfinite(y)) path += fmt::format("{}{:.1f},{:.1f} ", path.empty() ? "M" : "L", px(x), py(y));
    svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", path, colour);
    for (auto [x, y] : series[i].points)
      if (y > 0 && std::isfinite(y)) svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", px(x), py(y), colour);
    const double ly = T + 10 + 20.0 * double(i);
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\"/><text x=\"{4}\" y=\"{5}\">{6}</text>\n",
                       W - R + 12, ly, W - R + 36, colour, W - R + 42, ly + 4, escape(series[i].name));
  }
  return svg + "</svg>\n";
}

std::vector<std::pair<std::string, std::string>> sweep_charts(const ScenarioResult& r) {
  if (!r.sweep_parameter || r.sweep_points.empty()) return {};
  // Show the swept value in the unit users write: microseconds, GB/s, or as is.
  double scale = 1;
  std::string unit = r.sweep_unit;
  if (unit == "s") scale = 1e6, unit = "us";
  if (unit == "B/s") scale = 1e-9, unit = "GB/s";
  const std::string x_label = fmt::format("{} ({})", *r.sweep_parameter, unit);
  auto chart = [&](const char* file, const char* what, const char* y_label, bool log_y, std::function<double(const ConfigResult&)> metric) {
    std::vector<Series> series;
    for (std::size_t i = 0; i < r.sweep_points.front().configs.size(); ++i) {
      Series s{r.sweep_points.front().configs[i].name, {}};
      for (const auto& p : r.sweep_points)
        if (p.configs[i].memory.fits) s.points.emplace_back(p.value * scale, metric(p.configs[i]));
      series.push_back(std::move(s));
    }
    return std::pair{std::string(file), svg_line_chart(fmt::format("{}: {}", r.scenario, what), x_label, y_label, series, log_y)};
  };
  return {chart("ttft_p99.svg", "TTFT p99", "TTFT p99 (ms, log scale)", true, [](const ConfigResult& c) { return c.ttft_s.p99 * 1e3; }),
          chart("tpot_p99.svg", "TPOT p99", "TPOT p99 (ms, log scale)", true, [](const ConfigResult& c) { return c.tpot_s.p99 * 1e3; }),
          chart("throughput_per_gpu.svg", "throughput", "output tokens/s per GPU", false,
                [](const ConfigResult& c) { return c.throughput_tok_s_per_gpu; })};
}

}  // namespace tpsim
