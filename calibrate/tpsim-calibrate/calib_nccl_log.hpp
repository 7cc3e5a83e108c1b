// Writer of NCCL sweeps in the nccl-tests v2.13 text layout, so that `tpsim fit` and any
// other reader of real nccl-tests logs can read them.
//
// Layout of one data row (nccl-tests common.cu): "%12li  %12li  %8s  %6s  %6i" for size,
// count, type, redop, root, then twice (out-of-place, in-place) "  %7s  %6.2f  %6.2f  %5s"
// for time, algbw, busbw, #wrong. Time is printed "%7.2f" below 100 us, "%7.1f" below
// 10000 us and "%7.0f" above. Units: us, GB/s with 1 GB = 1e9 B.
//   algbw = size_B / time_s / 1e9
//   busbw = algbw * bus_factor (util/nccl_terms.hpp): 2(n-1)/n for all_reduce, (n-1)/n for
//   all_gather and reduce_scatter
// size is the whole buffer (all_gather: the gathered output; reduce_scatter: the input) and
// count = size / 4 (float elements), as nccl-tests prints them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "util/nccl_terms.hpp"

namespace tpsim::calib {

const char* collective_redop(CollectiveOp c);  // sum, none, sum (as nccl-tests prints it)

// Bytes actually moved for a requested size: all_gather and reduce_scatter need a whole
// number of float elements per rank, so the count is rounded down to a multiple of nranks
// (0 when the size is too small to give every rank one element: that row is not measured).
uint64_t collective_bytes(CollectiveOp c, uint64_t requested_bytes, int nranks);

struct NcclRow {
  uint64_t bytes = 0;
  double oop_us = 0, oop_p99_us = 0;  // out-of-place: median and p99 over iterations
  double ip_us = 0, ip_p99_us = 0;    // in-place
};

struct NcclLogInfo {
  CollectiveOp collective = CollectiveOp::all_reduce;
  int nranks = 2;
  std::vector<std::string> comments;  // header lines after the first, without the leading "# "
  std::vector<std::string> devices;   // "Using devices" lines after "#  ", one per rank
  uint64_t min_bytes = 8, max_bytes = 8;
  int factor = 2, warmup = 5, iters = 20;
};

std::string format_nccl_time(double us);
double algbw_GBps(uint64_t bytes, double us);
// One data row, exactly as nccl-tests prints it (no trailing newline). #wrong is printed 0:
// tpsim-calibrate does not check the reduced values (the log header says so).
std::string format_nccl_row(const NcclRow& row, CollectiveOp c, int nranks);
// The whole file: header comments, the nccl-tests column header, the rows, the closing
// "Out of bounds" and "Avg bus bandwidth" lines (mean of the busbw cells as printed, both
// out-of-place and in-place), then the p99 times as a commented table.
std::string format_nccl_log(const NcclLogInfo& info, const std::vector<NcclRow>& rows);

// "2.28.9" from ncclGetVersion's code: 22809 (>= 2.9: major*10000 + minor*100 + patch),
// 2708 (older: major*1000 + minor*100 + patch).
std::string nccl_version_string(int code);

}  // namespace tpsim::calib
