#include "tpsim-calibrate/calib_nccl_log.hpp"

#include <cstdio>
#include <sstream>

#include "tpsim-calibrate/calib_error.hpp"

namespace tpsim::calib {
namespace {

std::string printf_string(const char* fmt, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// busbw as printed (2 decimals), so the closing average is the mean of the written cells.
double printed(double v) { return std::stod(printf_string("%.2f", v)); }

}  // namespace

const char* collective_redop(CollectiveOp c) { return c == CollectiveOp::all_gather ? "none" : "sum"; }

uint64_t collective_bytes(CollectiveOp c, uint64_t requested_bytes, int nranks) {
  const uint64_t count = requested_bytes / 4;
  if (c == CollectiveOp::all_reduce) return count * 4;
  return count / static_cast<uint64_t>(nranks) * static_cast<uint64_t>(nranks) * 4;
}

std::string format_nccl_time(double us) {
  if (us >= 10000.0) return printf_string("%7.0f", us);
  if (us >= 100.0) return printf_string("%7.1f", us);
  return printf_string("%7.2f", us);
}

double algbw_GBps(uint64_t bytes, double us) { return us > 0 ? static_cast<double>(bytes) / (us * 1e-6) / 1e9 : 0.0; }

std::string format_nccl_row(const NcclRow& row, CollectiveOp c, int nranks) {
  std::string line = printf_string("%12lu  %12lu  %8s  %6s  %6i", static_cast<unsigned long>(row.bytes),
                                   static_cast<unsigned long>(row.bytes / 4), "float", collective_redop(c), -1);
  for (const double us : {row.oop_us, row.ip_us}) {
    const double alg = algbw_GBps(row.bytes, us);
    line += printf_string("  %7s  %6.2f  %6.2f  %5s", format_nccl_time(us).c_str(), alg, alg * bus_factor(c, nranks), "0");
  }
  return line;
}

std::string format_nccl_log(const NcclLogInfo& info, const std::vector<NcclRow>& rows) {
  if (rows.empty()) throw RunError("internal: an NCCL log with no measured row is never written");
  std::ostringstream out;
  out << "# nccl-tests-compatible log written by " << TOOL_NAME << " " << TOOL_VERSION << "\n";
  for (const std::string& c : info.comments) out << "# " << c << "\n";
  out << "# nThread 1 nGpus " << info.nranks << " minBytes " << info.min_bytes << " maxBytes " << info.max_bytes
      << " step: " << info.factor << "(factor) warmup iters: " << info.warmup << " iters: " << info.iters
      << " agg iters: 1 validation: 0 graph: 0\n";
  out << "#\n# Using devices\n";
  for (const std::string& d : info.devices) out << "#  " << d << "\n";
  out << "#\n"
      << "#                                                              out-of-place                       in-place          \n"
      << "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      << "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n";
  double busbw_sum = 0;
  for (const NcclRow& row : rows) {
    out << format_nccl_row(row, info.collective, info.nranks) << "\n";
    for (const double us : {row.oop_us, row.ip_us})
      busbw_sum += printed(algbw_GBps(row.bytes, us) * bus_factor(info.collective, info.nranks));
  }
  out << "# Out of bounds values : 0 OK\n";
  out << "# Avg bus bandwidth    : " << printf_string("%.2f", busbw_sum / (2.0 * static_cast<double>(rows.size()))) << "\n";
  out << "#\n# p99 of the per-iteration times (us), same rows as above (tpsim-calibrate extension):\n";
  out << "#" << printf_string("%11s  %9s  %9s", "size", "oop_p99", "ip_p99") << "\n";
  for (const NcclRow& row : rows)
    out << "#" << printf_string("%11lu  %9s  %9s", static_cast<unsigned long>(row.bytes),
                                format_nccl_time(row.oop_p99_us).c_str(), format_nccl_time(row.ip_p99_us).c_str())
        << "\n";
  return out.str();
}

std::string nccl_version_string(int code) {
  const int major = code >= 20900 ? code / 10000 : code / 1000;
  const int minor = code >= 20900 ? code % 10000 / 100 : code % 1000 / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

}  // namespace tpsim::calib
