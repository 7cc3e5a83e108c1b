// Reading a measured nccl-tests curve the way chapter 1.4 teaches (seeds/000, Eqs. 1.4.3-1.4.4):
//   T_ring(S, N) = 2(N-1)·alpha + 2(N-1)/N · S / BW        (all-reduce; (N-1) steps for all-gather)
// so the small-message floor is the latency term, 2(N-1)·alpha, and the large-message bus
// bandwidth (busbw = algbw · 2(N-1)/N, nccl-tests' definition) is BW. The two terms are equal at
//   S* = N · alpha · BW                                     (Eq. 1.4.4)
// and the measured time there is twice the floor: the knee read from the curve is the size from
// which the measured time stays at or above 2 x floor (log-log interpolation between the rows
// around that last crossing, so that a noisy small size does not count).
// Everything here comes from the log's own rows (out-of-place times); nothing is fitted.
//   floor:  median time of the rows up to the largest size within 10% of the smallest time
//   BW:     median bus bandwidth of the rows within 10% of the peak bus bandwidth
// No SimGrid, no model: a log in, numbers out.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "fit/nccl_log.hpp"

namespace tpsim {

// Rows whose time is within this factor of a reference behave like it (floor, plateau, test bounds).
constexpr double CURVE_NEAR = 1.10;

struct CurvePoint {
  double size_B = 0;
  double time_s = 0;
  double bus_bw_Bps = 0;  // size · bus factor / time
};

// The largest first size of a log that still shows its latency floor: 64 KiB, a decode step's
// all-reduce and within NCCL's LL range on the recorded boxes.
constexpr double FLOOR_MAX_B = 64 * 1024;

struct CurveReading {
  std::string file;
  CollectiveOp op = CollectiveOp::all_reduce;
  int nranks = 0;
  double bus_factor = 1;     // busbw / algbw
  int latency_steps = 1;     // 2(N-1) for all_reduce, N-1 for all_gather / reduce_scatter
  std::string path_class;    // as the caller inferred it ("" unknown)
  std::string gpu;           // as the log names it ("" when it does not)
  std::vector<CurvePoint> points;  // rows with a size and a positive out-of-place time
  // Latency floor and the per-step alpha of Eq. 1.4.3.
  double floor_s = 0;
  double floor_min_B = 0, floor_max_B = 0;
  int floor_rows = 0;
  double alpha_s = 0;        // floor / latency_steps
  // Whether the log's smallest size shows the floor: at most FLOOR_MAX_B (the sizes where NCCL runs
  // its small-message protocol) and below half the plateau's bus bandwidth (latency at least half
  // its time). Else the floor and alpha above are upper bounds.
  bool floor_reached = true;
  // Large-message bandwidth plateau.
  double bus_bw_Bps = 0, alg_bw_Bps = 0;
  double bw_min_B = 0, bw_max_B = 0;
  int bw_rows = 0;
  bool plateau_at_end = true;  // the plateau includes the largest size (else the curve falls after its peak)
  // Eq. 1.4.4 and the knee read from the curve.
  double s_star_B = 0;               // N · alpha · BW = floor · BW / bus_factor
  std::optional<double> knee_B;      // measured time = 2 x floor; none when the log stops before it
  std::optional<double> half_bw_B;   // bus bandwidth = BW / 2
  // The sizes that still behave like one term alone (within CURVE_NEAR): below latency_like_B the
  // time is the floor, above bandwidth_like_B it is S · f / BW.
  double latency_like_B = 0, bandwidth_like_B = 0;

  // Measured time at `size_B`: log-log interpolation; below the smallest size the floor, above
  // the largest the last time scaled by size (extrapolated = true then).
  double time_at(double size_B, bool* extrapolated = nullptr) const;
  // The knee when the curve reaches it, else S*.
  double crossover_B() const { return knee_B ? *knee_B : s_star_B; }
};

// Reads `log` (`path_class` as the caller inferred it). Throws InputError located at the log when
// it has fewer than 4 usable rows or fewer than 2 ranks: there is no curve to read.
CurveReading read_curve(const fit::NcclLog& log, const std::string& path_class);

// One all-reduce of a model's step and which term of the measured curve dominates it.
struct CollectiveRegime {
  std::string what;          // "decode B=1", "decode B=64", "prefill 4096 tokens"
  double size_B = 0;
  double time_s = 0;         // measured (interpolated) time at that size
  bool extrapolated = false;
  bool latency_bound = true; // size below the knee (S* when the curve has none)
  double latency_share = 0;  // floor / time
};
CollectiveRegime regime_of(const CurveReading& r, const std::string& what, double size_B);

// Two logs of the same GPUs, P2P on and off: the large-message gap and the path behind it.
struct ModeGap {
  std::string p2p_file, staged_file;
  double bw_ratio = 1;       // P2P bus bandwidth / staged bus bandwidth
  double size_B = 0;         // largest size both measured
  double time_ratio = 1;     // staged time / P2P time there
  std::string explanation;
};
// Pairs of readings with the same op, ranks and GPU where one is staged (path class SHM) and the
// other is not; `explain(p2p, staged)` says what the platform's path explains.
std::vector<ModeGap> mode_gaps(const std::vector<CurveReading>& readings);
// What a path class means for the bytes, in words ("host-staged: ...").
std::string path_words(const std::string& path_class);

}  // namespace tpsim
