// The SVG of a curve reading: bus bandwidth and time against size, both on log axes. Per log:
// the measured points, the fitted (tpsim fit) or simulated (tpsim collective --compare) curve, and
// the alpha-BW line of Eq. 1.4.3, T = floor + S · f / BW; the knee and S* as vertical marks. Only
// bus bandwidth is drawn (algbw = busbw / f is named in the axis label), so the two never mix.
#include <filesystem>
#include <fmt/format.h>

#include "curve_report.hpp"
#include "svg_plot.hpp"

namespace tpsim {
namespace {

std::string short_name(const std::string& file) { return std::filesystem::path(file).stem().string(); }

// The alpha-BW line over the measured sizes.
std::vector<std::pair<double, double>> alpha_bw_times(const CurveReading& c) {
  std::vector<std::pair<double, double>> t;
  for (const auto& p : c.points) t.emplace_back(p.size_B, c.floor_s + p.size_B * c.bus_factor / c.bus_bw_Bps);
  return t;
}

std::vector<std::pair<double, double>> as_bus_bw(const std::vector<std::pair<double, double>>& times, double factor) {
  std::vector<std::pair<double, double>> bw;
  for (auto [s, t] : times) bw.emplace_back(s, t > 0 ? s * factor / t / 1e9 : 0);
  return bw;
}

std::vector<std::pair<double, double>> in_us(std::vector<std::pair<double, double>> times) {
  for (auto& p : times) p.second *= 1e6;
  return times;
}

}  // namespace

std::string render_curve_svg(const CurveReport& r) {
  std::string logs;
  for (std::size_t i = 0; i < r.logs.size(); ++i)
    logs += r.logs.size() == 1 ? short_name(r.logs[i].curve.file) : fmt::format("{}log{} = {}", i ? ", " : "", i + 1, short_name(r.logs[i].curve.file));
  ChartSpec bw{"bus bandwidth vs message size: " + logs, "message size (B, log scale)",
               "bus bandwidth (GB/s, log scale; algbw = busbw / f, f = 2(N-1)/N)", {}, true, true, {}};
  ChartSpec time{"time vs message size; knee: the latency and bandwidth terms equal", "message size (B, log scale)",
                 "out-of-place time (us, log scale)", {}, true, true, {}};
  for (std::size_t i = 0; i < r.logs.size(); ++i) {
    const LogReading& l = r.logs[i];
    const CurveReading& c = l.curve;
    const int colour = int(i);
    const std::string name = r.logs.size() == 1 ? "" : fmt::format("log{} ", i + 1);
    std::vector<std::pair<double, double>> measured;
    for (const auto& p : c.points) measured.emplace_back(p.size_B, p.time_s);
    const auto model_line = alpha_bw_times(c);
    bw.series.push_back({name + "measured busbw", as_bus_bw(measured, c.bus_factor), false, true, false, colour});
    time.series.push_back({name + "measured", in_us(measured), false, true, false, colour});
    if (!l.model_curve.empty()) {
      bw.series.push_back({name + l.model_curve_name + " busbw", as_bus_bw(l.model_curve, c.bus_factor), true, false, false, colour});
      time.series.push_back({name + l.model_curve_name, in_us(l.model_curve), true, false, false, colour});
    }
    bw.series.push_back({name + "Eq. 1.4.3 alpha-BW", as_bus_bw(model_line, c.bus_factor), true, false, true, colour});
    time.series.push_back({name + "Eq. 1.4.3 alpha-BW", in_us(model_line), true, false, true, colour});
    for (ChartSpec* chart : {&bw, &time}) {
      if (c.knee_B) chart->marks.push_back({*c.knee_B, fmt::format("{}knee {:.0f} B", name, *c.knee_B), colour});
      chart->marks.push_back({c.s_star_B, fmt::format("{}S* = N·alpha·BW = {:.0f} B", name, c.s_star_B), colour});
    }
  }
  return svg_document({bw, time});
}

}  // namespace tpsim
