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

// Maps data to pixels on one axis: linear, or logarithmic over whole decades.
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double fraction(double v) const { return log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo); }
  std::vector<double> ticks() const {
    if (!log) return linear_ticks(lo, hi);
    std::vector<double> t;
    for (double v = lo; v <= hi * 1.0001; v *= 10) t.push_back(v);
    return t;
  }
};

bool drawable(const std::pair<double, double>& p, bool log_x) {
  return p.second > 0 && std::isfinite(p.second) && std::isfinite(p.first) && (!log_x || p.first > 0);
}

// The axes' ranges from the series (and marks): decades on a log axis, from 0 (y) on a linear one.
std::pair<Axis, Axis> axes_of(const ChartSpec& c) {
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const auto& s : c.series)
    for (const auto& p : s.points)
      if (drawable(p, c.log_x)) x0 = std::min(x0, p.first), x1 = std::max(x1, p.first), y0 = std::min(y0, p.second), y1 = std::max(y1, p.second);
  if (!std::isfinite(x0)) x0 = c.log_x ? 1 : 0, x1 = c.log_x ? 10 : 1, y0 = 1, y1 = 10;
  for (const auto& m : c.marks)
    if (std::isfinite(m.x) && (!c.log_x || m.x > 0)) x0 = std::min(x0, m.x), x1 = std::max(x1, m.x);
  Axis x{x0, x1, c.log_x}, y{y0, y1, c.log_y};
  for (Axis* a : {&x, &y}) {
    if (a->log) a->lo = std::pow(10, std::floor(std::log10(a->lo))), a->hi = std::pow(10, std::ceil(std::log10(a->hi)));
    if (a->hi <= a->lo) a->hi = a->log ? a->lo * 10 : a->lo + 1;
  }
  if (!y.log) y.lo = 0, y.hi = y1 * 1.1 > 0 ? y1 * 1.1 : 1;
  return {x, y};
}

std::string tick_text(double v, bool log) { return log && v >= 1e4 ? fmt::format("1e{:.0f}", std::log10(v)) : fmt::format("{:g}", v); }

// One chart with its top at `top` px.
std::string chart_group(const ChartSpec& c, double top) {
  const auto [xa, ya] = axes_of(c);
  auto px = [&](double x) { return L + xa.fraction(x) * (W - L - R); };
  auto py = [&](double y) { return top + H - B - ya.fraction(y) * (H - T - B); };
  const double y_bottom = top + H - B, y_top = top + T;
  std::string svg = fmt::format("<g>\n<text x=\"{}\" y=\"{}\" font-size=\"15\">{}</text>\n", L, top + 24, escape(c.title));
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"black\"/><line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\" stroke=\"black\"/>\n",
                     L, y_bottom, W - R, y_top);
  for (double v : xa.ticks())
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/><text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
                       px(v), y_bottom, y_top, y_bottom + 16, tick_text(v, xa.log));
  for (double v : ya.ticks())
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/><text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
                       L, py(v), W - R, L - 6, py(v) + 4, tick_text(v, ya.log));
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (L + W - R) / 2, top + H - 18, escape(c.x_label));
  svg += fmt::format("<text transform=\"translate(18,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n", top + (T + H - B) / 2, escape(c.y_label));
  for (std::size_t i = 0; i < c.marks.size(); ++i) {
    const ChartMark& m = c.marks[i];
    if (!std::isfinite(m.x) || (xa.log && m.x <= 0)) continue;
    const char* colour = COLOURS[(m.colour < 0 ? int(i) : m.colour) % 8];
    svg += fmt::format("<line class=\"mark\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"{3}\" stroke-dasharray=\"2,3\"/>"
                       "<text x=\"{4:.1f}\" y=\"{5:.1f}\" fill=\"{3}\" font-size=\"10\">{6}</text>\n",
                       px(m.x), y_bottom, y_top, colour, px(m.x) + 3, y_top + 12 + 12.0 * double(i), escape(m.label));
  }
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    const char* colour = COLOURS[(s.colour < 0 ? int(i) : s.colour) % 8];
    const char* dash = s.dashed ? " stroke-dasharray=\"6,4\"" : "";
    std::string path;
    for (const auto& p : s.points)
      if (drawable(p, xa.log)) path += fmt::format("{}{:.1f},{:.1f} ", path.empty() ? "M" : "L", px(p.first), py(p.second));
    if (s.line && !path.empty())
      svg += fmt::format("<path class=\"series\" data-series=\"{}\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", escape(s.name), path, colour, dash);
    if (s.dots)
      for (const auto& p : s.points)
        if (drawable(p, xa.log))
          svg += fmt::format("<circle data-series=\"{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", escape(s.name), px(p.first), py(p.second), colour);
    const double ly = y_top + 10 + 20.0 * double(i);
    svg += s.line ? fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>", W - R + 12, ly, W - R + 36, colour, dash)
                  : fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"/>", W - R + 24, ly, colour);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>\n", W - R + 42, ly + 4, escape(s.name));
  }
  return svg + "</g>\n";
}

}  // namespace

std::string svg_document(const std::vector<ChartSpec>& charts) {
  std::string svg = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"12\">\n"
                                "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
                                W, H * double(charts.size()));
  for (std::size_t i = 0; i < charts.size(); ++i) svg += chart_group(charts[i], H * double(i));
  return svg + "</svg>\n";
}

std::string svg_line_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<Series>& series, bool log_y) {
  return svg_document({ChartSpec{title, x_label, y_label, series, false, log_y, {}}});
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
