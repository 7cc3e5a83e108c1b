#include "curve_reading.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "util/error.hpp"
#include "util/median.hpp"

namespace tpsim {
namespace {

// The size from which y stays at or above `target` to the largest size: the last upward crossing,
// log-log between the two rows around it (a noisy small size above target does not count);
// nullopt when the largest size is below target.
template <class Y>
std::optional<double> last_crossing(const std::vector<CurvePoint>& p, double target, Y y) {
  if (y(p.back()) < target) return std::nullopt;
  for (std::size_t i = p.size() - 1; i >= 1; --i) {
    if (y(p[i - 1]) >= target) continue;
    const double y0 = std::log(y(p[i - 1])), y1 = std::log(y(p[i])), x0 = std::log(p[i - 1].size_B), x1 = std::log(p[i].size_B);
    return std::exp(x0 + (std::log(target) - y0) / (y1 - y0) * (x1 - x0));
  }
  return p.front().size_B;
}

void read_floor(CurveReading& r) {
  double t_min = INFINITY;
  for (const auto& p : r.points) t_min = std::min(t_min, p.time_s);
  for (const auto& p : r.points)
    if (p.time_s <= CURVE_NEAR * t_min) r.floor_max_B = p.size_B;
  std::vector<double> times;
  for (const auto& p : r.points)
    if (p.size_B <= r.floor_max_B) times.push_back(p.time_s);
  r.floor_min_B = r.points.front().size_B;
  r.floor_rows = int(times.size());
  r.floor_s = median(times);
  r.alpha_s = r.floor_s / r.latency_steps;
}

void read_plateau(CurveReading& r) {
  double peak = 0;
  for (const auto& p : r.points) peak = std::max(peak, p.bus_bw_Bps);
  std::vector<double> bws;
  r.bw_min_B = INFINITY;
  for (const auto& p : r.points)
    if (p.bus_bw_Bps >= peak / CURVE_NEAR) {
      bws.push_back(p.bus_bw_Bps);
      r.bw_min_B = std::min(r.bw_min_B, p.size_B), r.bw_max_B = std::max(r.bw_max_B, p.size_B);
    }
  r.bw_rows = int(bws.size());
  r.bus_bw_Bps = median(bws);
  r.alg_bw_Bps = r.bus_bw_Bps / r.bus_factor;
  r.plateau_at_end = r.bw_max_B == r.points.back().size_B;
}

// The sizes where one term alone still describes the time (within CURVE_NEAR).
void read_single_term_sizes(CurveReading& r) {
  for (const auto& p : r.points)
    if (p.time_s <= CURVE_NEAR * r.floor_s) r.latency_like_B = p.size_B;
  r.bandwidth_like_B = r.points.back().size_B;
  for (auto it = r.points.rbegin(); it != r.points.rend(); ++it) {
    if (it->time_s > CURVE_NEAR * it->size_B * r.bus_factor / r.bus_bw_Bps) break;
    r.bandwidth_like_B = it->size_B;
  }
}

}  // namespace

double CurveReading::time_at(double size_B, bool* extrapolated) const {
  if (extrapolated) *extrapolated = size_B < points.front().size_B || size_B > points.back().size_B;
  if (size_B <= points.front().size_B) return std::max(floor_s, size_B * bus_factor / bus_bw_Bps);
  if (size_B >= points.back().size_B) return points.back().time_s * size_B / points.back().size_B;
  std::size_t i = 1;
  while (points[i].size_B < size_B) ++i;
  if (points[i].size_B == size_B) return points[i].time_s;
  const CurvePoint &a = points[i - 1], &b = points[i];
  const double f = std::log(size_B / a.size_B) / std::log(b.size_B / a.size_B);
  return std::exp(std::log(a.time_s) + f * std::log(b.time_s / a.time_s));
}

CurveReading read_curve(const fit::NcclLog& log, const std::string& path_class) {
  CurveReading r;
  r.file = log.file;
  r.op = log.op;
  r.nranks = log.nranks;
  r.path_class = path_class;
  r.gpu = log.gpu_name;
  if (log.nranks < 2) throw InputError({log.file}, fmt::format("no curve to read: the log ran {} rank(s); the knee needs 2 or more", log.nranks));
  r.bus_factor = bus_factor(log.op, log.nranks);
  r.latency_steps = log.op == CollectiveOp::all_reduce ? 2 * (log.nranks - 1) : log.op == CollectiveOp::send_recv ? 1 : log.nranks - 1;
  for (const auto& row : log.rows) {
    const double t = row.out_of_place.time_us * 1e-6;
    if (row.size_B > 0 && t > 0 && std::isfinite(t)) r.points.push_back({double(row.size_B), t, double(row.size_B) * r.bus_factor / t});
  }
  if (r.points.size() < 4)
    throw InputError({log.file}, fmt::format("no curve to read: {} sizes with a time, the knee needs 4 or more", r.points.size()));
  read_floor(r);
  read_plateau(r);
  r.floor_reached = r.points.front().size_B <= FLOOR_MAX_B && r.points.front().bus_bw_Bps < r.bus_bw_Bps / 2;
  // Eq. 1.4.4: S* = N·alpha·BW; with alpha = floor / steps this is floor · BW / bus factor.
  r.s_star_B = r.floor_s * r.bus_bw_Bps / r.bus_factor;
  r.knee_B = last_crossing(r.points, 2 * r.floor_s, [](const CurvePoint& p) { return p.time_s; });
  r.half_bw_B = last_crossing(r.points, r.bus_bw_Bps / 2, [](const CurvePoint& p) { return p.bus_bw_Bps; });
  read_single_term_sizes(r);
  return r;
}

CollectiveRegime regime_of(const CurveReading& r, const std::string& what, double size_B) {
  CollectiveRegime g;
  g.what = what;
  g.size_B = size_B;
  g.time_s = r.time_at(size_B, &g.extrapolated);
  g.latency_bound = size_B < r.crossover_B();
  g.latency_share = std::min(1.0, r.floor_s / g.time_s);
  return g;
}

std::string path_words(const std::string& c) {
  if (c == "SHM") return "host-staged: P2P is off or unsupported, so NCCL copies GPU -> pinned host memory -> GPU (SHM transport), "
                         "each byte crossing PCIe twice and the host's memory on the way";
  if (c == "NVL") return "NVLink peer-to-peer";
  if (c == "PIX") return "PCIe peer-to-peer through one PCIe switch";
  if (c == "PXB") return "PCIe peer-to-peer through several PCIe switches";
  if (c == "PHB") return "PCIe peer-to-peer through the CPU's host bridge";
  if (c == "SYS") return "PCIe across the inter-socket link (SYS)";
  if (c == "NET") return "the network between nodes";
  return "path class unknown (the log does not say; give --path-class or --platform)";
}

std::vector<ModeGap> mode_gaps(const std::vector<CurveReading>& readings) {
  std::vector<ModeGap> out;
  for (const auto& staged : readings) {
    if (staged.path_class != "SHM") continue;
    for (const auto& p2p : readings) {
      if (p2p.path_class == "SHM" || p2p.op != staged.op || p2p.nranks != staged.nranks || p2p.gpu != staged.gpu) continue;
      ModeGap g;
      g.p2p_file = p2p.file, g.staged_file = staged.file;
      g.bw_ratio = p2p.bus_bw_Bps / staged.bus_bw_Bps;
      g.size_B = std::min(p2p.points.back().size_B, staged.points.back().size_B);
      g.time_ratio = staged.time_at(g.size_B) / p2p.time_at(g.size_B);
      g.explanation = fmt::format("P2P on: {}; P2P off: {}", path_words(p2p.path_class), path_words(staged.path_class));
      out.push_back(std::move(g));
    }
  }
  return out;
}

}  // namespace tpsim
