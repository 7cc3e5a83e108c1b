// Collective curve fit: the envelope model (segmented least-squares starts, then Nelder-Mead
// on log-parameters) and the fit's public entry points; the piecewise model and the choice
// between the two are in collective_pieces.cpp.
#include "collective_fit.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <functional>

#include "collective_fit_parts.hpp"
#include "nelder_mead.hpp"
#include "util/error.hpp"
#include "util/median.hpp"
#include "util/units.hpp"

namespace tpsim::fit {

namespace detail {

// Huber threshold on |ln(model/measured)|: 5%. Beyond it the loss grows linearly, so the
// fit behaves like a least-absolute-error (median) fit and an isolated outlier such as the
// DGX H100 log's 68 us at 32 B moves nothing. (Tried: 1%..25% and plain least squares; at
// >= 7% the DGX fit lets LL's bandwidth collapse to fit 8-16 B, and the best start depends
// on how many starts are polished. 2% and 5% give the same optimum from 8 or 1000 starts.)
constexpr double HUBER_DELTA = 0.05;

double huber(double r) {
  double a = std::fabs(r);
  return a <= HUBER_DELTA ? 0.5 * r * r : HUBER_DELTA * (a - 0.5 * HUBER_DELTA);
}

// Line t = L + a*S through samples [lo, hi) minimising sum((L + a*S)/t - 1)^2, kept physical.
std::pair<double, double> fit_line(const std::vector<Sample>& s, std::size_t lo, std::size_t hi) {
  double s11 = 0, s12 = 0, s22 = 0, b1 = 0, b2 = 0;
  for (std::size_t i = lo; i < hi; ++i) {
    double u = 1 / s[i].time_s, v = s[i].size_B / s[i].time_s;
    s11 += u * u;
    s12 += u * v;
    s22 += v * v;
    b1 += u;
    b2 += v;
  }
  double det = s11 * s22 - s12 * s12;
  double L = NAN, a = NAN;
  if (det > 1e-12 * s11 * s22) {
    L = (b1 * s22 - b2 * s12) / det;
    a = (s11 * b2 - s12 * b1) / det;
  }
  // Degenerate or unphysical: fall back to a floor through the smallest time and the
  // slope of the piece's last point.
  double tmin = s[lo].time_s;
  for (std::size_t i = lo; i < hi; ++i) tmin = std::min(tmin, s[i].time_s);
  if (!(L > 0)) L = 0.5 * tmin;
  if (!(a > 0)) a = std::max(s[hi - 1].time_s - L, 1e-3 * s[hi - 1].time_s) / s[hi - 1].size_B;
  return {L, a};
}

}  // namespace detail

namespace {

using namespace detail;


double model_time(const Params& p, const Enabled& on, double f, double size_B) {
  double best = INFINITY;
  for (int i = 0; i < 3; ++i) {
    if (!on[i]) continue;
    double t = p.latency_s[i] + size_B * f / p.bus_bw_Bps[i];
    best = std::min(best, t);
  }
  return best;
}


double loss(const Params& p, const Enabled& on, double f, const std::vector<Sample>& s) {
  double sum = 0;
  for (const Sample& x : s) sum += huber(std::log(model_time(p, on, f, x.size_B) / x.time_s));
  return sum;
}

// Unconstrained coordinates -> ordered parameters:
//   ln L_LL = x0, ln L_LL128 = x0 + x1^2, ln L_Simple = ln L_LL128 + x2^2, same for B with x3..x5.
Params decode(const std::vector<double>& x) {
  Params p;
  double l = x[0], b = x[3];
  for (int i = 0; i < 3; ++i) {
    if (i > 0) {
      l += x[i] * x[i];
      b += x[3 + i] * x[3 + i];
    }
    p.latency_s[i] = std::exp(l);
    p.bus_bw_Bps[i] = std::exp(b);
  }
  return p;
}

std::vector<double> encode(Params p) {
  std::sort(p.latency_s.begin(), p.latency_s.end());
  std::sort(p.bus_bw_Bps.begin(), p.bus_bw_Bps.end());
  std::vector<double> x(6);
  x[0] = std::log(p.latency_s[0]);
  x[3] = std::log(p.bus_bw_Bps[0]);
  for (int i = 1; i < 3; ++i) {
    x[i] = std::sqrt(std::log(p.latency_s[i] / p.latency_s[i - 1]));
    x[3 + i] = std::sqrt(std::log(p.bus_bw_Bps[i] / p.bus_bw_Bps[i - 1]));
  }
  return x;
}

// Starts: every cut of the sorted samples into 1, 2 or 3 contiguous pieces of >= 2 points.
std::vector<Params> segment_starts(const std::vector<Sample>& s, double f) {
  std::vector<Params> out;
  std::size_t n = s.size();
  auto make = [&](std::vector<std::pair<std::size_t, std::size_t>> pieces) {
    Params p;
    for (std::size_t i = 0; i < 3; ++i) {
      auto [lo, hi] = pieces[std::min(i, pieces.size() - 1)];
      auto [L, a] = fit_line(s, lo, hi);
      p.latency_s[i] = L;
      p.bus_bw_Bps[i] = f / a;
    }
    std::sort(p.latency_s.begin(), p.latency_s.end());
    std::sort(p.bus_bw_Bps.begin(), p.bus_bw_Bps.end());
    out.push_back(p);
  };
  make({{0, n}});
  for (std::size_t i = 2; i + 2 <= n; ++i) {
    make({{0, i}, {i, n}});
    for (std::size_t j = i + 2; j + 2 <= n; ++j) make({{0, i}, {i, j}, {j, n}});
  }
  return out;
}

// "A", "A and B", "A, B and C".
std::string spoken_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

// The protocols a fit draws lines for: LL, LL128 where NCCL runs it, Simple; only the forced one.
Enabled fitted_protocols(const FitOptions& options) {
  Enabled on{true, options.ll128, true};
  if (options.forced_protocol)
    for (int i = 0; i < 3; ++i) on[i] = i == static_cast<int>(*options.forced_protocol);
  return on;
}

// The timed sizes lines for the protocols `on` need: POINTS_PER_LINE each.
std::size_t sizes_needed_for(const Enabled& on) { return POINTS_PER_LINE * static_cast<std::size_t>(std::count(on.begin(), on.end(), true)); }

// How a log of too few sizes for a line per protocol is fitted with one: `--protocol`, or (for the
// collectives tpsim simulates on a platform) the platform's choice at these sizes.
std::string one_line_advice(const NcclLog& log) {
  if (!is_swept(log.op)) return " (one protocol's line needs 2: give --protocol, the one NCCL ran at these sizes)";
  return fmt::format(" (one protocol's line needs 2: --protocol, or --platform and --gpus naming the log's {} GPUs, to fit the one "
                     "the platform's defaults run at these sizes)",
                     log.nranks);
}

// The out-of-place times of `log`, checked: located errors for a time that is not positive
// and for fewer sizes than the fitted protocols' lines need.
std::vector<Sample> read_samples(const NcclLog& log, const Enabled& on) {
  std::vector<Sample> samples;
  for (const NcclRow& r : log.rows) {
    double t = r.out_of_place.time_us;
    if (std::isnan(t)) continue;  // N/A: nothing measured at this size
    if (!(t > 0))
      throw InputError({log.file, r.line, r.time_col},
                       fmt::format("out-of-place time {} us cannot be fitted; times must be > 0", t));
    samples.push_back({static_cast<double>(r.size_B), t * 1e-6});
  }
  std::vector<std::string> names;
  for (Protocol p : ALL_PROTOCOLS)
    if (on[static_cast<int>(p)]) names.push_back(protocol_name(p));
  const std::size_t needed = sizes_needed_for(on);
  if (samples.size() < needed)
    throw InputError({log.file, log.rows.empty() ? 0 : log.rows.back().line, 0},
                     fmt::format("{} size{} with an out-of-place time; fitting latency and bandwidth of {} needs at least {}{}",
                                 samples.size(), samples.size() == 1 ? "" : "s", spoken_list(names), needed,
                                 names.size() > 1 && samples.size() >= POINTS_PER_LINE ? one_line_advice(log) : ""));
  return samples;
}

// Envelope model: rank the starts, polish the best few, keep the best result (ties: earlier
// start). A protocol runs where its line is the lowest; equal lines (the fit merged two
// protocols) count for the outer one: Simple, then LL, since LL128 exists only on NVLink paths.
Model fit_envelope(const std::vector<Sample>& samples, const Enabled& on, double f) {
  auto objective = [&](const std::vector<double>& x) { return loss(decode(x), on, f, samples); };
  std::vector<Params> starts = segment_starts(samples, f);
  std::vector<std::pair<double, std::size_t>> ranked;
  for (std::size_t i = 0; i < starts.size(); ++i) ranked.push_back({loss(starts[i], on, f, samples), i});
  std::stable_sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.first < b.first; });
  constexpr std::size_t POLISHED = 16;
  Model m;
  for (std::size_t k = 0; k < std::min(POLISHED, ranked.size()); ++k) {
    std::vector<double> x = nelder_mead(objective, encode(starts[ranked[k].second]), 0.3);
    double v = objective(x);
    if (v < m.loss) {
      m.loss = v;
      m.p = decode(x);
    }
  }
  for (const Sample& s : samples) {
    double t_best = model_time(m.p, on, f, s.size_B);
    for (int w : {2, 0, 1}) {
      if (on[w] && m.p.latency_s[w] + s.size_B * f / m.p.bus_bw_Bps[w] <= t_best * (1 + 1e-6)) {
        m.runs[w] = true;
        break;
      }
    }
  }
  return m;
}

// The algorithms NCCL has for the log (piece_labels in the header) and the protocols fitted.
std::vector<Algorithm> algorithms(CollectiveOp op, int nranks, int nodes) {
  if (nranks == 2 || op == CollectiveOp::all_to_all) return {Algorithm::direct};  // alltoall: sends to every peer
  if (nodes > 1 && op == CollectiveOp::all_reduce) return {Algorithm::tree, Algorithm::ring};
  return {Algorithm::ring};
}

std::vector<Protocol> protocols_in_use(bool ll128) {
  if (ll128) return {Protocol::LL, Protocol::LL128, Protocol::Simple};
  return {Protocol::LL, Protocol::Simple};
}

// Reported protocols: fitted ones as they are; one that runs at no measured size copies its
// nearest running protocol by index (the faster-streaming, higher index, on a tie).
std::array<ProtocolFit, 3> reported_protocols(const Model& m, const Enabled& on) {
  std::array<ProtocolFit, 3> out;
  for (int i = 0; i < 3; ++i) {
    ProtocolFit& pf = out[i];
    pf.constrained = m.runs[i];
    pf.enabled = on[i];
    int src = i;
    if (!m.runs[i]) {
      for (int d = 1; d < 3 && src == i; ++d) {
        if (i + d < 3 && m.runs[i + d]) src = i + d;
        else if (i - d >= 0 && m.runs[i - d]) src = i - d;
      }
      pf.copied_from = static_cast<Protocol>(src);
    }
    pf.latency_s = m.p.latency_s[src];
    pf.bus_bw_Bps = m.p.bus_bw_Bps[src];
  }
  return out;
}

}  // namespace

int CollectiveFit::piece_at(double size_B) const {
  for (std::size_t i = 0; i < pieces.size(); ++i)
    if (size_B <= pieces[i].max_size_B) return static_cast<int>(i);
  return -1;
}

// Envelope: on a tie (an unconstrained protocol is a copy of a fitted one) the fitted one is named.
Protocol CollectiveFit::pick(double size_B) const {
  if (const int i = piece_at(size_B); i >= 0) return pieces[i].protocol;
  int best = 0;
  double t_best = INFINITY;
  for (int i = 0; i < 3; ++i) {
    double t = protocols[i].latency_s + size_B * bus_factor / protocols[i].bus_bw_Bps;
    if (t < t_best || (t == t_best && protocols[i].constrained && !protocols[best].constrained)) {
      t_best = t;
      best = i;
    }
  }
  return static_cast<Protocol>(best);
}

double CollectiveFit::predict_time_s(double size_B) const {
  if (const int i = piece_at(size_B); i >= 0) return pieces[i].latency_s + size_B * bus_factor / pieces[i].bus_bw_Bps;
  const ProtocolFit& p = (*this)[pick(size_B)];
  return p.latency_s + size_B * bus_factor / p.bus_bw_Bps;
}

int max_pieces(CollectiveOp op, int nranks, int nodes, bool ll128) {
  return static_cast<int>(algorithms(op, nranks, nodes).size() * protocols_in_use(ll128).size());
}

std::vector<std::pair<Algorithm, Protocol>> piece_labels(int k, CollectiveOp op, int nranks, int nodes, bool ll128) {
  const std::vector<Algorithm> algs = algorithms(op, nranks, nodes);
  const std::vector<Protocol> protos = protocols_in_use(ll128);
  std::vector<std::pair<Algorithm, Protocol>> labels;
  if (k < 1 || k > max_pieces(op, nranks, nodes, ll128)) return labels;
  const int per_first = (k + static_cast<int>(algs.size()) - 1) / static_cast<int>(algs.size());  // ceil(k / #algs)
  for (std::size_t a = 0; a < algs.size(); ++a) {
    const int m = a == 0 ? per_first : k - per_first;  // pieces of this algorithm
    for (int i = 0; i < m; ++i) labels.push_back({algs[a], i + 1 == m ? Protocol::Simple : protos[i]});
  }
  return labels;
}

FitResiduals residuals(const std::vector<FitPoint>& points, double min_size_B) {
  FitResiduals r;
  r.min_size_B = min_size_B;
  std::vector<double> err;
  for (const FitPoint& p : points) {
    if (p.size_B < min_size_B) continue;
    double e = std::fabs(p.predicted_s / p.measured_s - 1);
    err.push_back(e);
    if (e > r.worst) {
      r.worst = e;
      r.worst_size_B = p.size_B;
    }
  }
  r.points = static_cast<int>(err.size());
  r.median = err.empty() ? NAN : median(err);
  if (err.empty()) r.worst = NAN;
  return r;
}

std::string serial_launch_note(int gpus_per_thread, const std::string& nccl_version) {
  if (nccl_group_launch(nccl_version))
    return fmt::format("one thread launched on {} GPUs (nccl-tests -g {}) as one group: NCCL {} predates 2.9, whose default "
                       "NCCL_LAUNCH_MODE=GROUP starts every GPU's kernel at once, so its small-size times hold no serial launches",
                       gpus_per_thread, gpus_per_thread, nccl_version);
  return fmt::format("one thread launched on {} GPUs (nccl-tests -g {}): small-size times include its serial launches, "
                     "above what an engine with one process per GPU sees; rerun with -g 1, one rank per GPU, for that",
                     gpus_per_thread, gpus_per_thread);
}

namespace {
// No GPU's links carry this bus bandwidth: ten times NVLink 5's 1.8 TB/s (both directions of a B200's
// port). A line fitted above it ran flat, or faster, as its sizes grew: its bandwidth was not measured.
constexpr double UNBOUNDED_BUS_BPS = 18e12;
}  // namespace

std::optional<std::string> unbounded_bandwidth_note(const CollectiveFit& f) {
  // A piece below the largest size holds only its own sizes, where a flat line is what they measured (a
  // latency floor); the last piece runs every larger size, and the envelope's lines any size and box.
  std::vector<std::string> found;
  if (!f.pieces.empty() && f.pieces.back().bus_bw_Bps > UNBOUNDED_BUS_BPS)
    found.push_back(fmt::format("the last size piece ({}/{}), which runs every size beyond the log's,",
                                algorithm_name(f.pieces.back().algorithm), protocol_name(f.pieces.back().protocol)));
  for (Protocol p : {Protocol::LL, Protocol::LL128, Protocol::Simple})
    if (f[p].constrained && f[p].bus_bw_Bps > UNBOUNDED_BUS_BPS)
      found.push_back(fmt::format("the {} line, which carries to other sizes and boxes,", protocol_name(p)));
  if (found.empty()) return std::nullopt;
  return fmt::format("{} fitted a bus bandwidth above what any GPU's links carry ({:.0f} TB/s): the log's times do not grow "
                     "with size there, which predicts almost no time for more bytes; check the log's largest sizes",
                     spoken_list(found), UNBOUNDED_BUS_BPS / 1e12);
}

namespace {

// A sweep whose time falls where NCCL changed protocol late (NVIDIA/nccl#2441, 0.5-1.5 MB in 0.1 MB
// steps: 373 us at 1.0 MB, 157 at 1.1) is no envelope of lines, whose minimum never falls: the
// optimiser answers with a flat line (a bandwidth no links carry). Size pieces, which can fall, carry
// such a curve; its protocol lines are left to the defaults (fitted: false; written as the last
// piece's line), and the fit says so.
void leave_flat_lines_to_pieces(CollectiveFit& fit) {
  const bool flat = std::any_of(fit.protocols.begin(), fit.protocols.end(),
                                [](const ProtocolFit& p) { return p.constrained && p.bus_bw_Bps > UNBOUNDED_BUS_BPS; });
  if (!flat || fit.pieces.empty()) return;
  // Written as copies of the last piece (the largest sizes' line), which nothing reads but a reader's checks.
  for (ProtocolFit& p : fit.protocols) {
    p.constrained = p.enabled = false;
    p.latency_s = fit.pieces.back().latency_s, p.bus_bw_Bps = fit.pieces.back().bus_bw_Bps;
  }
  fit.lines_left_to_pieces = true;
}

}  // namespace

std::optional<std::string> flat_lines_note(const CollectiveFit& f) {
  if (!f.lines_left_to_pieces) return std::nullopt;
  return fmt::format("the times fall where NCCL changed protocol, which no set of protocol lines follows (a line came out flat): the "
                     "{} size pieces carry the curve on this box, and the protocol lines are left to the defaults (fitted: false)",
                     f.pieces.size());
}

// A protocol's term is measured where the protocol runs and the term is a real share of the time.
void mark_measured_terms(CollectiveFit& fit) {
  for (ProtocolFit& p : fit.protocols) p.latency_measured = p.bandwidth_measured = false;
  for (const FitPoint& pt : fit.points) {
    if (pt.piece >= 0) continue;
    ProtocolFit& p = fit.protocols[static_cast<int>(pt.protocol)];
    const double t = p.latency_s + pt.size_B * fit.bus_factor / p.bus_bw_Bps;
    if (p.latency_s >= MEASURED_SHARE * t) p.latency_measured = true;
    if (t - p.latency_s >= MEASURED_SHARE * t) p.bandwidth_measured = true;
  }
  // With pieces every size runs a piece: the envelope's lines still describe the curve.
  if (!fit.pieces.empty())
    for (ProtocolFit& p : fit.protocols) p.latency_measured = p.bandwidth_measured = p.constrained;
}

namespace {
// The sizes each protocol line wins, in runs, as pieces with that line's numbers (the last one unbounded).
void pieces_from_lines(CollectiveFit& fit) {
  for (FitPoint& point : fit.points) {
    const ProtocolFit& line = fit.protocols[static_cast<int>(point.protocol)];
    if (fit.pieces.empty() || fit.pieces.back().protocol != point.protocol)
      fit.pieces.push_back({line.algorithm, point.protocol, line.latency_s, line.bus_bw_Bps, point.size_B});
    fit.pieces.back().max_size_B = point.size_B;
    point.piece = static_cast<int>(fit.pieces.size()) - 1;
  }
  if (!fit.pieces.empty()) fit.pieces.back().max_size_B = INFINITY;
  for (ProtocolFit& p : fit.protocols) p.latency_measured = p.bandwidth_measured = p.constrained;
}
}  // namespace

void annotate_transfer(CollectiveFit& fit, double wire_Bps, std::optional<double> nvls_above_Bps) {
  fit.wire_Bps = wire_Bps;
  const Algorithm usual = fit.nodes > 1 && fit.op == CollectiveOp::all_reduce ? Algorithm::tree
                          : fit.nranks == 2 || fit.op == CollectiveOp::all_to_all ? Algorithm::direct
                                                                              : Algorithm::ring;
  const Algorithm nvls = fit.nodes > 1 ? Algorithm::nvls_tree : Algorithm::nvls;
  const auto ran_nvls = [&](double bus_Bps) { return nvls_above_Bps && bus_Bps > *nvls_above_Bps; };
  for (ProtocolFit& p : fit.protocols) {
    p.wire_fraction = p.bus_bw_Bps / wire_Bps;
    p.algorithm = ran_nvls(p.bus_bw_Bps) ? nvls : usual;
  }
  // An LL or LL128 line above every ring ran NVLS, which NCCL runs with Simple alone: a run can replay no
  // such line (an 8x H100 NVLS sweep's 1-128 MiB, fitted as an "LL128" line at 453 GB/s, replayed 17-48%
  // slow on the ring's defaults). Where the fit drew no pieces, the sizes each line won become pieces,
  // labelled below, so the box replays as fitted.
  bool unreplayable = false;
  for (Protocol p : {Protocol::LL, Protocol::LL128}) {
    const ProtocolFit& line = fit.protocols[static_cast<int>(p)];
    unreplayable = unreplayable || (line.constrained && is_nvls(line.algorithm));
  }
  if (unreplayable && fit.pieces.empty() && !fit.forced_algorithm) pieces_from_lines(fit);
  // So did a piece above every ring's reach (its label was the rule's, piece_labels), and NVLS runs
  // Simple alone: an 8x H100 sweep's 128 MiB-4 GiB pieces at 447-504 GB/s of bus bandwidth on rings of
  // 450 GB/s of wire were labelled ring LL, LL128 and Simple. Not under a forced algorithm: the log ran
  // it (a ring-forced sweep's 1-4 MiB piece, whose latency holds most of its time, reads 674 GB/s).
  for (PieceFit& piece : fit.pieces)
    if (!fit.forced_algorithm && ran_nvls(piece.bus_bw_Bps)) piece.algorithm = nvls, piece.protocol = Protocol::Simple;
  for (FitPoint& point : fit.points)
    if (point.piece >= 0) point.protocol = fit.pieces[point.piece].protocol;
}

std::size_t sizes_needed(const FitOptions& options) { return sizes_needed_for(fitted_protocols(options)); }

CollectiveFit fit_collective(const NcclLog& log, const FitOptions& options) {
  const Enabled on = fitted_protocols(options);
  const std::vector<Sample> samples = read_samples(log, on);
  if (log.nranks == 0)
    throw InputError({log.file, log.header_line, 0},
                     fmt::format("cannot tell how many ranks ran this {} (its busbw equals its algbw at any rank count, and no "
                                 "Rank lines, 'nranks' comment, launcher count or -g N says): add a line '# nranks: N' to the log",
                                 collective_op_name(log.op)));
  if (log.nranks < 2)
    throw InputError({log.file, log.header_line, 0},
                     fmt::format("{} over {} rank moves no data between GPUs; nothing to fit", collective_op_name(log.op), log.nranks));

  CollectiveFit fit;
  auto slash = log.file.find_last_of("/\\");
  fit.source = slash == std::string::npos ? log.file : log.file.substr(slash + 1);
  fit.op = log.op;
  fit.nranks = log.nranks;
  fit.op_source = log.op_source;
  fit.gpus_per_thread = log.gpus_per_thread;
  fit.nranks_source = log.nranks_source;
  fit.bus_factor = bus_factor_is_constant(log.op) ? 1.0 : bus_factor(log.op, log.nranks);
  fit.nodes = options.nodes;

  const Model envelope = fit_envelope(samples, on, fit.bus_factor);
  fit.protocols = reported_protocols(envelope, on);
  const LineTable lines = fit_all_lines(samples, fit.bus_factor);
  const std::vector<Cut> cuts =
      best_cuts(lines, samples.size(), max_pieces(fit.op, fit.nranks, fit.nodes, options.ll128));
  if (const int k = chosen_piece_count(envelope, cuts, samples.size()); k > 0) {
    auto labels = piece_labels(k, fit.op, fit.nranks, fit.nodes, options.ll128);
    // Under a forced protocol (or algorithm) NCCL still picks the rest and its channels by size:
    // the pieces record those steps, every one of them in what the log forced.
    for (auto& label : labels) {
      if (options.forced_protocol) label.second = *options.forced_protocol;
      if (options.forced_algorithm) label.first = *options.forced_algorithm;
    }
    fit.pieces = make_pieces(cuts[k - 1], lines, samples, labels);
  }

  leave_flat_lines_to_pieces(fit);
  for (const Sample& s : samples)
    fit.points.push_back(
        {s.size_B, s.time_s, fit.predict_time_s(s.size_B), fit.pick(s.size_B), fit.piece_at(s.size_B)});
  mark_measured_terms(fit);
  fit.all = residuals(fit.points, 0);
  fit.large = residuals(fit.points, RESIDUAL_MIN_SIZE_B);
  // Times that fall as sizes grow (a mistyped time, a unit slip) fit an infinite bandwidth: refuse
  // the log rather than write a calibration that tpsim cannot read back (found by fuzz_nccl_log).
  auto sane = [](double latency_s, double bw_Bps) { return std::isfinite(latency_s) && latency_s >= 0 && std::isfinite(bw_Bps) && bw_Bps > 0; };
  bool ok = true;
  for (const ProtocolFit& p : fit.protocols) ok = ok && (!p.constrained || sane(p.latency_s, p.bus_bw_Bps));
  for (const PieceFit& p : fit.pieces) ok = ok && sane(p.latency_s, p.bus_bw_Bps);
  // A bandwidth finite but absurd (1e35 B/s, as clang's rounding of the same input gave) shows in
  // the residuals: a fitted time 100x off the measured one is no fit (a calibration file refuses it).
  ok = ok && fit.all.worst < MAX_FIT_RELATIVE_ERROR;
  if (!ok)
    throw InputError({log.file, log.header_line, 0},
                     "the times do not follow latency + size / bandwidth (the fit gives an infinite bandwidth, a negative "
                     "latency or times 100x off): check the time column");
  return fit;
}

}  // namespace tpsim::fit
