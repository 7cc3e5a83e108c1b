// GEMM efficiency table and HBM copy bandwidth (see gemm_table.hpp for the model).
#include "gemm_table.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string_view>
#include <tuple>

#include "util/error.hpp"
#include "util/median.hpp"

namespace tpsim::fit {
namespace {

struct Field {
  std::string_view text;  // trimmed
  int col;                // 1-based column of the field's first character
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<Field> split_csv(std::string_view line) {
  std::vector<Field> out;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = line.find(',', start);
    std::string_view raw = line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    std::size_t lead = 0;
    while (lead < raw.size() && std::isspace(static_cast<unsigned char>(raw[lead]))) ++lead;
    out.push_back({trim(raw), static_cast<int>(start + lead) + 1});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// Calls `row(fields, line_no)` for each data line after checking the header.
template <class F>
void read_csv(const std::string& text, const std::string& file, const std::vector<std::string>& header, F row) {
  std::string expected;
  for (const auto& h : header) expected += (expected.empty() ? "" : ",") + h;
  bool seen_header = false;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = end + 1;
    ++line_no;
    std::string_view body = trim(line);
    if (body.empty() || body.front() == '#') continue;
    auto fields = split_csv(line);
    if (!seen_header) {
      for (std::size_t i = 0; i < header.size(); ++i) {
        if (i >= fields.size() || fields[i].text != header[i])
          throw InputError({file, line_no, i < fields.size() ? fields[i].col : static_cast<int>(line.size()) + 1},
                           fmt::format("expected the header '{}'", expected));
      }
      if (fields.size() != header.size())
        throw InputError({file, line_no, fields[header.size()].col}, fmt::format("expected the header '{}'", expected));
      seen_header = true;
      continue;
    }
    if (fields.size() != header.size())
      throw InputError({file, line_no, fields.size() > header.size() ? fields[header.size()].col : static_cast<int>(line.size()) + 1},
                       fmt::format("expected {} fields ({}), found {}", header.size(), expected, fields.size()));
    row(fields, line_no);
  }
  if (!seen_header) throw InputError({file, 1, 1}, fmt::format("empty file: expected the header '{}'", expected));
}

std::int64_t positive_int(const Field& f, const char* what, const std::string& file, int line) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(f.text.data(), f.text.data() + f.text.size(), v);
  if (f.text.empty() || ec != std::errc() || end != f.text.data() + f.text.size() || v <= 0)
    throw InputError({file, line, f.col}, fmt::format("expected {} (an integer > 0), found '{}'", what, f.text));
  return v;
}

double number(const Field& f, const char* what, bool positive, const std::string& file, int line) {
  double v = 0;
  auto [end, ec] = std::from_chars(f.text.data(), f.text.data() + f.text.size(), v);
  bool ok = !f.text.empty() && ec == std::errc() && end == f.text.data() + f.text.size() && std::isfinite(v);
  if (!ok || (positive ? v <= 0 : v < 0))
    throw InputError({file, line, f.col},
                     fmt::format("expected {} (a number {}), found '{}'", what, positive ? "> 0" : ">= 0", f.text));
  return v;
}

// tflops and eff_bw_GBps: a number >= 0, or empty / N/A when not computed.
void optional_number(const Field& f, const char* what, const std::string& file, int line) {
  if (f.text.empty() || f.text == "N/A") return;
  number(f, what, false, file, line);
}

std::string known_dtypes() { return "bf16, fp16, fp8, fp8_e4m3, fp8_e5m2, fp32, tf32, int8"; }

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Canonical dtype for grouping: aliases of one width and format compare equal.
std::string canonical_dtype(const std::string& d) {
  std::string s = lower(d);
  if (s == "bfloat16") return "bf16";
  if (s == "f16" || s == "half" || s == "float16") return "fp16";
  if (s == "f32" || s == "float" || s == "float32") return "fp32";
  if (s == "e4m3" || s == "fp8") return "fp8_e4m3";
  if (s == "e5m2") return "fp8_e5m2";
  return s;
}

double interpolate_log(const std::vector<std::pair<double, double>>& xy, double x) {
  // xy sorted by x (ln m -> ln e); constant beyond the ends.
  if (x <= xy.front().first) return xy.front().second;
  if (x >= xy.back().first) return xy.back().second;
  auto hi = std::lower_bound(xy.begin(), xy.end(), x, [](const auto& p, double v) { return p.first < v; });
  auto lo = hi - 1;
  if (hi->first == x) return hi->second;
  double t = (x - lo->first) / (hi->first - lo->first);
  return lo->second + t * (hi->second - lo->second);
}

// Deep in the memory-bound regime (the header's preamble): 29 us at m = 1 against 32-36 us for
// m = 2-32 on the H100 table's TP=8 Llama-2-7B layer, 49 against 56-66 us on the A100 one. A
// serving engine meets every batch size, so those rows take the group's median efficiency.
constexpr double DEEP_MEMORY_BOUND_SHARE = 1.0 / 8;

// curve: (ln m, ln e) of one (n, k) group, sorted by m.
void pool_memory_bound(std::vector<std::pair<double, double>>& curve, double n, double k, int bytes_per_element,
                       double peak_flops, double hbm_bw_Bps) {
  auto deep = [&](double ln_m) {
    return GemmTable::deep_memory_bound(std::exp(ln_m), n, k, bytes_per_element, peak_flops, hbm_bw_Bps);
  };
  std::vector<double> pooled;
  for (const auto& [x, y] : curve)
    if (deep(x)) pooled.push_back(y);
  if (pooled.size() < 2) return;
  const double pooled_median = median(pooled);
  for (auto& [x, y] : curve)
    if (deep(x)) y = pooled_median;
}

}  // namespace

int dtype_bytes(const std::string& dtype) {
  std::string s = canonical_dtype(dtype);
  if (s == "bf16" || s == "fp16") return 2;
  if (s == "fp8_e4m3" || s == "fp8_e5m2" || s == "int8") return 1;
  if (s == "fp32" || s == "tf32") return 4;
  return 0;
}

GemmTable::GemmTable(std::vector<GemmPoint> points) : points_(std::move(points)) {
  std::map<std::tuple<std::string, std::int64_t, std::int64_t>, std::size_t> index;
  for (std::size_t i = 0; i < points_.size(); ++i) {
    const GemmPoint& p = points_[i];
    if (p.m <= 0 || p.n <= 0 || p.k <= 0 || !(p.time_s > 0) || !std::isfinite(p.time_s))
      throw ValueError(fmt::format("GEMM {} m={} n={} k={}: dimensions and time must be > 0", p.op, p.m, p.n, p.k));
    if (dtype_bytes(p.dtype) == 0)
      throw ValueError(fmt::format("GEMM {}: unknown dtype '{}' (known: {})", p.op, p.dtype, known_dtypes()));
    auto [it, added] = index.try_emplace({canonical_dtype(p.dtype), p.n, p.k}, groups_.size());
    if (added) groups_.push_back({canonical_dtype(p.dtype), p.n, p.k, {}});
    groups_[it->second].rows.push_back(i);
  }
}

double GemmTable::flop_efficiency(const GemmPoint& p, double peak_flops) {
  return 2.0 * p.m * p.n * p.k / p.time_s / peak_flops;
}

double GemmTable::roofline_time(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dtype,
                                double peak_flops, double hbm_bw_Bps) {
  double md = m, nd = n, kd = k;
  double bytes = (md * kd + kd * nd + md * nd) * dtype_bytes(dtype);
  return std::max(2.0 * md * nd * kd / peak_flops, bytes / hbm_bw_Bps);
}

bool GemmTable::deep_memory_bound(double m, double n, double k, int bytes_per_element, double peak_flops,
                                  double hbm_bw_Bps) {
  return 2 * m * n * k / peak_flops <= DEEP_MEMORY_BOUND_SHARE * (m * k + k * n + m * n) * bytes_per_element / hbm_bw_Bps;
}

bool GemmTable::has_dtype(const std::string& dtype) const {
  const std::string want = canonical_dtype(dtype);
  return std::any_of(groups_.begin(), groups_.end(), [&](const Group& g) { return g.dtype == want; });
}

double GemmTable::predict_time(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dtype,
                               double peak_flops, double hbm_bw_Bps, std::optional<std::size_t> leave_out) const {
  return predict_time_on(m, n, k, dtype, {peak_flops, hbm_bw_Bps}, {peak_flops, hbm_bw_Bps}, leave_out);
}

double GemmTable::predict_time_on(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dtype,
                                  const GemmRates& measured_on, const GemmRates& target, std::optional<std::size_t> leave_out) const {
  const auto positive = [](const GemmRates& r) { return r.peak_flops > 0 && r.hbm_bw_Bps > 0; };
  if (m <= 0 || n <= 0 || k <= 0 || !positive(measured_on) || !positive(target))
    throw ValueError(fmt::format("GEMM prediction for m={} n={} k={} needs positive shape, peak and bandwidth", m, n, k));
  const std::string want = canonical_dtype(dtype);
  auto rows_of = [&](const Group& g) {
    return std::count_if(g.rows.begin(), g.rows.end(), [&](std::size_t i) { return i != leave_out; });
  };
  // The nearest measured (n, k) of this dtype; ties go to the smaller n*k, then smaller n.
  const Group* best = nullptr;
  std::tuple<double, std::int64_t, std::int64_t> best_key;
  for (const Group& g : groups_) {
    if (g.dtype != want || rows_of(g) == 0) continue;
    const double d = std::fabs(std::log(double(g.n) / n)) + std::fabs(std::log(double(g.k) / k));
    const std::tuple<double, std::int64_t, std::int64_t> key{d, g.n * g.k, g.n};
    if (!best || key < best_key) best = &g, best_key = key;
  }
  if (!best) throw ValueError(fmt::format("no GEMM measurement for dtype '{}'", dtype));
  // ln e by ln m over that group; repeated m averaged (geometric mean of the times).
  const double peak = measured_on.peak_flops, hbm = measured_on.hbm_bw_Bps;
  std::map<std::int64_t, std::pair<double, int>> by_m;
  for (std::size_t i : best->rows) {
    if (i == leave_out) continue;
    const GemmPoint& p = points_[i];
    const double e = roofline_time(p.m, p.n, p.k, p.dtype, peak, hbm) / p.time_s;
    auto& [sum, count] = by_m[p.m];
    sum += std::log(e);
    ++count;
  }
  std::vector<std::pair<double, double>> curve;
  for (const auto& [mm, acc] : by_m) curve.push_back({std::log(double(mm)), acc.first / acc.second});
  pool_memory_bound(curve, double(best->n), double(best->k), dtype_bytes(want), peak, hbm);
  const double e = std::exp(interpolate_log(curve, std::log(double(m))));
  return roofline_time(m, n, k, dtype, target.peak_flops, target.hbm_bw_Bps) / e;
}

GemmCrossCheck cross_check(const GemmTable& table) {
  GemmCrossCheck r;
  const auto& pts = table.points();
  r.points = int(pts.size());
  if (pts.empty()) return r;
  for (const GemmPoint& p : pts) {
    r.peak_flops = std::max(r.peak_flops, 2.0 * p.m * p.n * p.k / p.time_s);
    r.hbm_bw_Bps = std::max(r.hbm_bw_Bps, (double(p.m) * p.k + double(p.k) * p.n + double(p.m) * p.n) * dtype_bytes(p.dtype) / p.time_s);
  }
  auto error = [&](std::size_t i, std::optional<std::size_t> leave_out) {
    const GemmPoint& p = pts[i];
    return std::fabs(table.predict_time(p.m, p.n, p.k, p.dtype, r.peak_flops, r.hbm_bw_Bps, leave_out) / p.time_s - 1);
  };
  std::vector<double> left_out;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    r.recorded_worst = std::max(r.recorded_worst, error(i, std::nullopt));
    r.pooled += GemmTable::deep_memory_bound(double(pts[i].m), double(pts[i].n), double(pts[i].k), dtype_bytes(pts[i].dtype),
                                             r.peak_flops, r.hbm_bw_Bps);
    if (pts.size() < 2) continue;
    const double e = error(i, i);
    if (e > r.worst) r.worst = e, r.worst_point = pts[i];
    left_out.push_back(e);
  }
  if (!left_out.empty()) {
    std::nth_element(left_out.begin(), left_out.begin() + left_out.size() / 2, left_out.end());
    r.median = left_out[left_out.size() / 2];
  }
  return r;
}

GemmTable parse_gemm_csv(const std::string& text, const std::string& file) {
  std::vector<GemmPoint> points;
  std::map<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, std::string>, int> seen;
  read_csv(text, file, {"op", "m", "n", "k", "dtype", "time_us", "tflops", "eff_bw_GBps"},
           [&](const std::vector<Field>& f, int line) {
             GemmPoint p;
             if (f[0].text.empty()) throw InputError({file, line, f[0].col}, "empty op name");
             p.op = std::string(f[0].text);
             p.m = positive_int(f[1], "m", file, line);
             p.n = positive_int(f[2], "n", file, line);
             p.k = positive_int(f[3], "k", file, line);
             p.dtype = std::string(f[4].text);
             if (dtype_bytes(p.dtype) == 0)
               throw InputError({file, line, f[4].col},
                                fmt::format("unknown dtype '{}' (known: {})", p.dtype, known_dtypes()));
             p.time_s = number(f[5], "time_us", true, file, line) * 1e-6;
             optional_number(f[6], "tflops", file, line);
             optional_number(f[7], "eff_bw_GBps", file, line);
             p.line = line;
             auto [it, fresh] = seen.insert({{p.op, p.m, p.n, p.k, canonical_dtype(p.dtype)}, line});
             if (!fresh)
               throw InputError({file, line, f[0].col},
                                fmt::format("{} m={} n={} k={} {} measured twice (first at line {})", p.op, p.m, p.n,
                                            p.k, p.dtype, it->second));
             points.push_back(std::move(p));
           });
  if (points.empty()) throw InputError({file, 0, 0}, "no GEMM rows after the header");
  return GemmTable(std::move(points));
}

std::optional<DeclaredGpu> declared_gpu(const std::string& text) {
  static const std::regex line_re(R"(^#\s*gpu:\s*(\S.*?)\s*$)");
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    if (std::regex_match(line, m, line_re)) return DeclaredGpu{m[1].str(), number, int(m.position(1)) + 1};
  }
  return std::nullopt;
}

HbmFit parse_hbm_csv(const std::string& text, const std::string& file) {
  std::vector<std::pair<double, double>> rows;  // bytes, 2b/t
  read_csv(text, file, {"bytes", "time_us", "copy_GBps"}, [&](const std::vector<Field>& f, int line) {
    double b = static_cast<double>(positive_int(f[0], "bytes", file, line));
    double t = number(f[1], "time_us", true, file, line) * 1e-6;
    optional_number(f[2], "copy_GBps", file, line);
    rows.push_back({b, 2 * b / t});
  });
  if (rows.empty()) throw InputError({file, 0, 0}, "no HBM copy rows after the header");
  std::stable_sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.first > b.first; });
  constexpr std::size_t LARGEST = 3;
  std::size_t used = std::min(LARGEST, rows.size());
  std::vector<double> bw;
  for (std::size_t i = 0; i < used; ++i) bw.push_back(rows[i].second);
  std::sort(bw.begin(), bw.end());
  HbmFit fit;
  fit.bw_Bps = used % 2 ? bw[used / 2] : 0.5 * (bw[used / 2 - 1] + bw[used / 2]);
  fit.points_used = static_cast<int>(used);
  fit.min_size_used_B = rows[used - 1].first;
  fit.points_total = static_cast<int>(rows.size());
  return fit;
}

}  // namespace tpsim::fit
