// Fits tpsim's collective cost model to one nccl-tests sweep.
//
// Per protocol p in {LL, LL128, Simple}, a collective of S bytes (the size nccl-tests
// reports) over N ranks on one path class takes
//     t_p(S) = L_p + S * f / B_p
// with f the bus factor (2(N-1)/N for all_reduce, (N-1)/N for all_gather and
// reduce_scatter, see nccl_log.hpp) and B_p the bus bandwidth of protocol p. Which protocol
// runs at S is modelled in one of two ways:
//   * envelope: NCCL runs the fastest one, t(S) = min_p t_p(S), with L_LL <= L_LL128 <=
//     L_Simple and B_LL <= B_LL128 <= B_Simple (LL is cheap to start and slow to stream,
//     Simple the opposite). A lower envelope of lines is concave.
//   * ranges: NCCL's tuner picks by size (from its own prediction, which can be wrong), LL on
//     sizes up to max_size_LL, LL128 up to max_size_LL128, Simple beyond, and each piece
//     follows its own line: the next piece may be slower, so the curve can jump up at a
//     switch (the OCI RoCE log: 1079 us at 32 MiB, 6058 us at 64 MiB). No ordering of L or B.
// The envelope is the default; the ranged model is kept only when it lowers the fit's loss
// to under 70% of the envelope's (RANGES_LOSS_RATIO, collective_fit.cpp), because it says
// more than the data may support (a switch point between two measured sizes) and, unlike
// the envelope, it does not move its switch points when the latency is extrapolated to
// another rank count.
//
// The loss is the sum over sizes of rho(ln(t(S)/t_measured)), rho a Huber loss (quadratic
// up to 5%, linear beyond: close to a least-absolute-error fit, so one noisy size cannot
// drag a whole protocol). Envelope: over ln L_p and ln B_p, from starts that cut the curve
// into 1, 2 or 3 contiguous pieces fitted by linear least squares on relative error;
// Nelder-Mead polishes the 16 best starts and the lowest loss wins. Ranges: every pair of
// breakpoints between measured sizes, each piece (empty, or of 2 sizes or more) fitted on
// its own by Nelder-Mead from its least-squares line; the lowest total loss wins.
// Everything is deterministic (no random restarts, fixed iteration order).
//
// A protocol that runs at no measured size (or is switched off in FitOptions) is not
// constrained by the data; it is reported with constrained = false and the parameters of
// its nearest fitted neighbour (by index; Simple on a tie), so it ties with that neighbour
// and changes no prediction. In an envelope fit where two protocols fit the same line, the
// wins go to the outer one (Simple, then LL): LL128 is the protocol NVLink-only paths add.
#pragma once
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "nccl_log.hpp"

namespace tpsim::fit {

enum class Protocol { LL = 0, LL128 = 1, Simple = 2 };
const char* protocol_name(Protocol p);

struct ProtocolFit {
  double latency_s = 0;   // L_p
  double bus_bw_Bps = 0;  // B_p, bus bandwidth in bytes per second
  bool constrained = false;             // runs at one measured size or more
  bool enabled = true;                  // false: switched off in FitOptions
  Protocol copied_from = Protocol::LL;  // meaningful when !constrained
  // Ranged fits: the largest size this protocol runs at (the last measured size of its
  // piece); +infinity for the last protocol used, and in envelope fits. A protocol with an
  // empty range gets its predecessor's bound (0 for LL), so it never runs.
  double max_size_B = INFINITY;
};

// Relative errors |t_model / t_measured - 1| over a set of sizes.
struct FitResiduals {
  double min_size_B = 0;    // sizes below this were left out
  int points = 0;
  double median = 0;
  double worst = 0;
  double worst_size_B = 0;  // the size where `worst` occurs
};

struct FitPoint {
  double size_B = 0;
  double measured_s = 0;
  double predicted_s = 0;
  Protocol protocol = Protocol::LL;  // the protocol the model picks at this size
};

// The fit needs latency and bandwidth for three protocols: 6 distinct sizes at least.
constexpr int MIN_FIT_POINTS = 6;
// Residuals are reported over all sizes and over sizes >= this (1 KiB).
constexpr double RESIDUAL_MIN_SIZE_B = 1024;

struct CollectiveFit {
  std::string source;  // file name without its directory
  CollectiveOp op = CollectiveOp::all_reduce;
  int nranks = 0;
  OpSource op_source = OpSource::columns;
  NranksSource nranks_source = NranksSource::not_needed;
  double bus_factor = 1;  // f in the model
  std::string path_class;  // NVL, PIX, PXB, PHB, SYS, SHM, NET; "" when the log does not say (set by the caller)
  int nodes = 1;           // nodes the ranks span (set by the caller)
  std::array<ProtocolFit, 3> protocols;  // indexed by Protocol
  FitResiduals all;       // every size with an out-of-place time
  FitResiduals large;     // sizes >= RESIDUAL_MIN_SIZE_B
  std::vector<FitPoint> points;

  const ProtocolFit& operator[](Protocol p) const { return protocols[static_cast<int>(p)]; }
  // True when the protocols run on size ranges (some max_size_B is finite).
  bool ranged() const;
  // The protocol NCCL runs at size_B: ranged fits, the first (LL, LL128, Simple) whose
  // max_size_B >= size_B; envelope fits, the fastest (a fitted one on ties, else the lowest
  // index). And its time t_p(size_B).
  Protocol pick(double size_B) const;
  double predict_time_s(double size_B) const;
};

struct FitOptions {
  // NCCL runs LL128 only over NVLink; fit PCIe, host-staged and network logs without it.
  bool ll128 = true;
};

// Fits the out-of-place times of `log`. Throws InputError (located in log.file) when the
// log holds fewer than MIN_FIT_POINTS usable sizes or a time that is not positive.
CollectiveFit fit_collective(const NcclLog& log, const FitOptions& options = {});

// Residuals of `points` restricted to sizes >= min_size_B (exposed for tests and reports).
FitResiduals residuals(const std::vector<FitPoint>& points, double min_size_B);

}  // namespace tpsim::fit
