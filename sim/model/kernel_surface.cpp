#include "kernel_surface.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>

#include "fit/gemm_table.hpp"
#include "util/error.hpp"
#include "vidur_tables.hpp"

namespace tpsim {

namespace {

// Least squares of t = floor + bytes / BW over the memory-bound rows (m <= 8).
std::pair<double, double> gemv_fit(const fit::GemmTable& table) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& p : table.points()) {
    if (p.m > 8) continue;
    const double x = double(p.m * p.k + p.k * p.n + p.m * p.n) * fit::dtype_bytes(p.dtype), y = p.time_s;
    n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  return {(sy - slope * sx) / n, 1 / slope};
}

// Median of the one-token rows of the small-kernel csv (`op,m,hidden,time_us`).
double small_kernel_median(const char* csv) {
  std::istringstream in(csv);
  std::vector<double> times;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("op,", 0) == 0) continue;
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    if (f.size() == 4 && f[1] == "1") times.push_back(std::stod(f[3]) * 1e-6);
  }
  std::sort(times.begin(), times.end());
  return times.empty() ? 0 : times[times.size() / 2];
}

KernelSurface build(const std::string& name, const char* reference_gpu) {
  const auto& tables = vidur_tables();
  const auto& t = tables.at(name);
  static std::map<std::string, std::unique_ptr<fit::GemmTable>> owned;
  auto& table = owned[name];
  table = std::make_unique<fit::GemmTable>(fit::parse_gemm_csv(t.gemm_csv, "vidur-kernels/" + name + "-gemm.csv").points());
  const GpuSpec* ref = find_gpu(reference_gpu);
  if (!ref) throw std::logic_error(std::string("kernel surface: no catalog GPU ") + reference_gpu);
  KernelSurface s;
  s.name = name;
  s.reference_gpu = reference_gpu;
  s.table = table.get();
  s.peak_flops = ref->bf16_peak_flops;
  s.hbm_peak_Bps = ref->hbm_peak_Bps;
  std::tie(s.gemm_floor_s, s.gemm_stream_Bps) = gemv_fit(*table);
  s.small_kernel_s = small_kernel_median(t.small_csv);
  s.source = "Vidur's published per-op times on " + std::string(reference_gpu) + " (calibrate/recorded/vidur-kernels/" + name +
             "-gemm.csv), carried by roofline ratio";
  return s;
}

}  // namespace

const KernelSurface& kernel_surface(const std::string& name) {
  static const std::map<std::string, KernelSurface> all = {
      {"a100", build("a100", "A100-SXM4-80GB")}, {"h100", build("h100", "H100-SXM5-80GB")}, {"a40", build("a40", "A40-48GB")}};
  auto it = all.find(name);
  if (it == all.end()) throw std::logic_error("no kernel surface '" + name + "'");
  return it->second;
}

const KernelSurface& kernel_surface_for(const GpuSpec& gpu) {
  if (gpu.compute_capability >= 90) return kernel_surface("h100");
  if (gpu.compute_capability == 70 || gpu.compute_capability == 80) return kernel_surface("a100");
  return kernel_surface("a40");
}

double surface_gemm_time(const KernelSurface& s, double m, double n, double k, double flops, double bytes,
                         double peak_flops, double hbm_peak_Bps) {
  const auto M = std::max<long long>(1, std::llround(m)), N = std::max<long long>(1, std::llround(n)),
             K = std::max<long long>(1, std::llround(k));
  const double t_ref = s.table->predict_time(M, N, K, "fp16", s.peak_flops, s.hbm_peak_Bps);
  const double roof_ref = fit::GemmTable::roofline_time(M, N, K, "fp16", s.peak_flops, s.hbm_peak_Bps);
  const double roof_target = std::max(flops / peak_flops, bytes / hbm_peak_Bps);
  const double t0 = std::min(s.gemm_floor_s, t_ref / 2);
  return t0 + (t_ref - t0) * roof_target / roof_ref;
}

}  // namespace tpsim
