// Fits tpsim's collective cost model to one nccl-tests sweep.
//
// Per protocol p in {LL, LL128, Simple}, a collective of S bytes (the size nccl-tests
// reports) over N ranks on one path class takes
//     t_p(S) = L_p + S * f / B_p
// with f the bus factor (2(N-1)/N for all_reduce, (N-1)/N for all_gather and
// reduce_scatter, see nccl_log.hpp) and B_p the bus bandwidth of protocol p. Which line
// runs at S is modelled in one of two ways:
//   * envelope: NCCL runs the fastest protocol, t(S) = min_p t_p(S), with L_LL <= L_LL128 <=
//     L_Simple and B_LL <= B_LL128 <= B_Simple (LL is cheap to start and slow to stream,
//     Simple the opposite). A lower envelope of lines is concave. Always fitted: its lines
//     are the per-protocol defaults (`protocols`).
//   * pieces: NCCL's tuner picks an (algorithm, protocol) pair by size, from its own
//     prediction, which can be wrong, so the curve can jump up at a switch (the OCI RoCE log:
//     1079 us at 32 MiB, 6058 us at 64 MiB). The sizes are cut into 1..K contiguous pieces of
//     2 measured sizes or more, each with its own line t(S) = L + S * f / B and no ordering
//     of L or B; a piece runs up to its last measured size (max_size_B), the last one beyond.
//     K is the number of (algorithm, protocol) pairs NCCL has for the log (max_pieces: 6 for
//     an all_reduce across nodes), and each piece is labelled with one (piece_labels).
// Model choice: the least penalised loss, BIC-like, n ln(loss / n) + ln(n) * parameters
// (collective_pieces.cpp), 2 parameters per envelope line that wins somewhere, 3 per piece; the
// envelope wins ties, because a switch point between two measured sizes says more than the
// data may support and, unlike the envelope, pieces do not move their switch points when the
// latency is extrapolated to another rank count.
//
// The loss is the sum over sizes of rho(ln(t(S)/t_measured)), rho a Huber loss (quadratic
// up to 5%, linear beyond: close to a least-absolute-error fit, so one noisy size cannot
// drag a whole protocol). Envelope: over ln L_p and ln B_p, from starts that cut the curve
// into 1, 2 or 3 contiguous pieces fitted by linear least squares on relative error;
// Nelder-Mead polishes the 16 best starts and the lowest loss wins. Pieces: every run of 2
// sizes or more is fitted on its own by Nelder-Mead from its least-squares line, and dynamic
// programming finds, for each piece count k, the cut with the lowest total loss.
// Everything is deterministic (no random restarts, fixed iteration order).
//
// A protocol that wins at no measured size in the envelope (or is switched off in
// FitOptions) is not constrained by the data; it is reported with constrained = false and
// the parameters of its nearest fitted neighbour (by index; Simple on a tie); the calibration
// file marks it `fitted: false`, and runs take the defaults for it. Where two protocols fit the same line, the wins go
// to the outer one (Simple, then LL): LL128 is the protocol NVLink-only paths add.
#pragma once
#include <array>
#include <optional>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "nccl_log.hpp"

#include "util/nccl_terms.hpp"

namespace tpsim::fit {


struct ProtocolFit {
  double latency_s = 0;   // L_p
  double bus_bw_Bps = 0;  // B_p, bus bandwidth in bytes per second
  bool constrained = false;             // runs at one measured size or more
  bool enabled = true;                  // false: switched off in FitOptions
  Protocol copied_from = Protocol::LL;  // meaningful when !constrained
  // Whether each term is a real share (>= MEASURED_SHARE) of the envelope's time at some size
  // where this line runs: a line that wins only at tiny sizes says nothing of its bandwidth.
  bool latency_measured = true, bandwidth_measured = true;
  // Set by annotate_transfer: the bus bandwidth over the fitted rings' wire rate, and the algorithm.
  std::optional<double> wire_fraction = std::nullopt;
  // Set by tpsim fit, which has the default model: the bus bandwidth over the model's default for
  // the line's algorithm and protocol on the fitted group.
  std::optional<double> model_fraction = std::nullopt;
  Algorithm algorithm = Algorithm::ring;
};

// A term counts as measured when it is at least this share of the time at one measured size.
constexpr double MEASURED_SHARE = 0.3;

// One piece of a piecewise fit: NCCL ran (algorithm, protocol) on the sizes above the previous
// piece's max_size_B up to this one's, t(S) = latency_s + S * f / bus_bw_Bps.
struct PieceFit {
  Algorithm algorithm = Algorithm::ring;
  Protocol protocol = Protocol::Simple;
  double latency_s = 0;
  double bus_bw_Bps = 0;
  double max_size_B = INFINITY;  // the piece's largest measured size; +infinity for the last piece
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
  int piece = -1;                    // index in CollectiveFit::pieces; -1 when the envelope decides
};

// A protocol's line is a latency and a bandwidth: 2 distinct sizes at least a fitted protocol
// (6 for LL, LL128 and Simple; 2 for one protocol, forced or the only one a short log runs).
constexpr std::size_t POINTS_PER_LINE = 2;
// Residuals are reported over all sizes and over sizes >= this (1 KiB).
constexpr double RESIDUAL_MIN_SIZE_B = 1024;

struct CollectiveFit {
  std::string source;  // file name without its directory
  CollectiveOp op = CollectiveOp::all_reduce;
  int nranks = 0;
  OpSource op_source = OpSource::columns;
  NranksSource nranks_source = NranksSource::unknown;
  double bus_factor = 1;  // f in the model
  int gpus_per_thread = 1;  // the log's nccl-tests -g: above 1, small sizes include serial launches
  std::string path_class;  // NVL, PIX, PXB, PHB, SYS, SHM, NET; "" when the log does not say (set by the caller)
  int nodes = 1;           // nodes the ranks span (FitOptions::nodes)
  std::string gpu;          // GPU model, from the platform or the log ("" when neither says)
  std::string nccl_version; // from the log's "NCCL version" line ("" when absent)
  std::string datatype;     // the rows' nccl-tests datatype (float, bfloat16, int8, ...)
  std::optional<double> wire_Bps;  // the fitted rings' wire rate, when the platform is known (annotate_transfer)
  std::string cpu_vendor, net_transport;  // the fitted platform's, when it says ("" otherwise; set by `tpsim fit`)
  std::string nvlink_fabric;  // the fitted GPUs' NVLink within a node: "switch", "direct", "" (set by `tpsim fit`)
  // What the log ran under (NCCL_ALGO, NCCL_PROTO, aws-ofi-nccl's Simple, or tpsim fit --algorithm,
  // --protocol): its pieces are NCCL's steps within it, not its choice of it (set by `tpsim fit`).
  std::optional<Algorithm> forced_algorithm;
  std::optional<Protocol> forced_protocol;
  // A host-staged log on a known platform: the host-copy rate (within a socket) or the socket-copy
  // rate (across sockets) its Simple line implies (model/host_staging.hpp; set by `tpsim fit`).
  std::optional<double> host_copy_Bps, socket_copy_Bps;
  // Why the fit carries no wire rate although a platform was given ("" otherwise; set by `tpsim fit`).
  std::string transfer_note;
  // With --platform: the box's largest size against the platform's uncalibrated model (a comment in the file).
  std::string pace_note;
  // The envelope came out with a flat line (a bandwidth no links carry) where the size pieces fit: its
  // protocol lines are left to the defaults (leave_flat_lines_to_pieces).
  bool lines_left_to_pieces = false;
  std::array<ProtocolFit, 3> protocols;  // the envelope, indexed by Protocol
  std::vector<PieceFit> pieces;          // empty when the envelope decides at every size
  FitResiduals all;       // every size with an out-of-place time
  FitResiduals large;     // sizes >= RESIDUAL_MIN_SIZE_B
  std::vector<FitPoint> points;

  const ProtocolFit& operator[](Protocol p) const { return protocols[static_cast<int>(p)]; }
  // The index of the first piece whose max_size_B >= size_B; -1 without pieces.
  int piece_at(double size_B) const;
  // The protocol NCCL runs at size_B: the piece's, or the envelope's fastest (a fitted one on
  // ties, else the lowest index). And the predicted time.
  Protocol pick(double size_B) const;
  double predict_time_s(double size_B) const;
};

struct FitOptions {
  // NCCL runs LL128 only over NVLink; fit PCIe, host-staged and network logs without it.
  bool ll128 = true;
  // Nodes the ranks span: more than one gives an all_reduce tree pieces as well as ring ones.
  int nodes = 1;
  // The protocol the log forced (NCCL_PROTO): only its line is fitted, the others are copies the
  // data did not constrain, and size pieces, where the curve has steps, all run that protocol.
  std::optional<Protocol> forced_protocol;
  // The algorithm the log forced (NCCL_ALGO): every piece and line is labelled with it (the labels
  // set how a latency moves to another rank count).
  std::optional<Algorithm> forced_algorithm;
};

// The (algorithm, protocol) labels of k pieces, in size order, for `op` over `nranks` ranks on
// `nodes` nodes. Algorithms: direct at 2 ranks; tree then ring for an all_reduce across nodes
// (NCCL's tree serves small sizes, its ring large ones), the first ceil(k/2) pieces tree;
// ring otherwise. Within an algorithm, m pieces run, in size order, the first m-1 of
// (LL, LL128) and then Simple (LL starts fastest, Simple streams fastest); without LL128,
// LL then Simple. Empty when k exceeds max_pieces. The labels matter for latency
// extrapolation to other rank counts only (collective_model.cpp).
std::vector<std::pair<Algorithm, Protocol>> piece_labels(int k, CollectiveOp op, int nranks, int nodes, bool ll128);
// The most pieces a log can have: algorithms times protocols (6 for an all_reduce across nodes).
int max_pieces(CollectiveOp op, int nranks, int nodes, bool ll128);

// What a log from one thread driving several GPUs (nccl-tests -g N) means for its latencies.
// NCCL before 2.9 launched them as one group (nccl_group_launch): no serial launches.
std::string serial_launch_note(int gpus_per_thread, const std::string& nccl_version);

// The fitted lines, and the last size piece, whose bus bandwidth no GPU's links carry (a sweep whose
// times stop growing with size, which they would carry beyond it), said in a note; nullopt when none.
std::optional<std::string> unbounded_bandwidth_note(const CollectiveFit& f);
// What was done with a flat line (CollectiveFit::lines_left_to_pieces); nullopt when nothing was.
std::optional<std::string> flat_lines_note(const CollectiveFit& f);

// The timed sizes a fit with `options` needs: POINTS_PER_LINE for each protocol it draws a line
// for (3 lines, 2 without LL128, 1 under a forced protocol).
std::size_t sizes_needed(const FitOptions& options);

// Fits the out-of-place times of `log`. Throws InputError (located in log.file) when the
// log holds fewer than POINTS_PER_LINE usable sizes a fitted protocol or a time that is not positive.
CollectiveFit fit_collective(const NcclLog& log, const FitOptions& options = {});

// What makes a fit carry to another box: the wire rate of the rings it measured, each protocol's
// bus bandwidth as a fraction of it, and the algorithm each line ran: NVLS (NVLS-tree across nodes)
// when the box offers it (`nvls_above_Bps` given) and the bus bandwidth is above `nvls_above_Bps`,
// what no ring reaches there (in-switch reduction can), else the algorithm NCCL runs for the ranks
// and nodes (direct, ring, tree). A piece above `nvls_above_Bps` is relabelled NVLS (NVLS-tree) Simple.
void annotate_transfer(CollectiveFit& fit, double wire_Bps, std::optional<double> nvls_above_Bps);

// Residuals of `points` restricted to sizes >= min_size_B (exposed for tests and reports).
FitResiduals residuals(const std::vector<FitPoint>& points, double min_size_B);

}  // namespace tpsim::fit
