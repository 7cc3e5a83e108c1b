// Internal to the collective fit (collective_fit.cpp, collective_pieces.cpp): the measured
// samples, the envelope's parameters, the robust loss and the piecewise model's steps.
#pragma once

#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "collective_fit.hpp"

namespace tpsim::fit::detail {

struct Sample {
  double size_B, time_s;
};

struct Params {
  std::array<double, 3> latency_s, bus_bw_Bps;
};

using Enabled = std::array<bool, 3>;

// A fitted envelope before it is reported: parameters per protocol, which protocols are the
// fastest at a measured size, and the loss reached.
struct Model {
  Params p{};
  std::array<bool, 3> runs{false, false, false};
  double loss = INFINITY;
};

// The robust loss of one log-ratio ln(model / measured): quadratic up to HUBER_DELTA, linear beyond.
double huber(double r);

// Line t = L + a*S through samples [lo, hi) minimising sum((L + a*S)/t - 1)^2, kept physical.
std::pair<double, double> fit_line(const std::vector<Sample>& s, std::size_t lo, std::size_t hi);

// A line t = L + S * f / B fitted to the samples [lo, hi), and its loss there.
struct Line {
  double latency_s = 0, bus_bw_Bps = 0, loss = INFINITY;
};

// lines[lo][hi]: the line of every run [lo, hi) of MIN_PIECE_POINTS samples or more.
using LineTable = std::vector<std::vector<Line>>;
LineTable fit_all_lines(const std::vector<Sample>& s, double f);

// A cut of the n samples into contiguous pieces: piece i covers [ends[i-1], ends[i]) (from 0
// for the first), and the sum of the pieces' losses.
struct Cut {
  std::vector<std::size_t> ends;
  double loss = INFINITY;
};

// For k = 1..max_k, the cut into k pieces with the least total loss (cuts[k-1]; loss INFINITY
// when the samples cannot hold k pieces).
std::vector<Cut> best_cuts(const LineTable& lines, std::size_t n, int max_k);

// The pieces of `cut`, labelled in size order.
std::vector<PieceFit> make_pieces(const Cut& cut, const LineTable& lines, const std::vector<Sample>& s,
                                  const std::vector<std::pair<Algorithm, Protocol>>& labels);

// The piece count with the least information criterion; 0 for the envelope, which wins ties.
int chosen_piece_count(const Model& envelope, const std::vector<Cut>& cuts, std::size_t n);

}  // namespace tpsim::fit::detail
