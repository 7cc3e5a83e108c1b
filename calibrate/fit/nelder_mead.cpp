// Classic Nelder-Mead (reflection 1, expansion 2, contraction 1/2, shrink 1/2).
#include "nelder_mead.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tpsim::fit {
namespace {

using Vec = std::vector<double>;

Vec along(const Vec& c, const Vec& x, double t) {  // c + t (x - c)
  Vec out(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) out[i] = c[i] + t * (x[i] - c[i]);
  return out;
}

// One run from a fresh simplex around x0; returns the best vertex.
Vec run(const std::function<double(const Vec&)>& f, const Vec& x0, double step, int& budget) {
  std::size_t n = x0.size();
  std::vector<Vec> xs{x0};
  for (std::size_t i = 0; i < n; ++i) {
    Vec x = x0;
    x[i] += step;
    xs.push_back(x);
  }
  std::vector<double> fs;
  for (const Vec& x : xs) fs.push_back(f(x));
  budget -= static_cast<int>(xs.size());
  std::vector<std::size_t> order(n + 1);
  while (budget > 0) {
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return fs[a] < fs[b]; });
    std::size_t lo = order.front(), hi = order.back(), second = order[n - 1];
    double spread = std::fabs(fs[hi] - fs[lo]);
    double size = 0;
    for (const Vec& x : xs)
      for (std::size_t i = 0; i < n; ++i) size = std::max(size, std::fabs(x[i] - xs[lo][i]));
    if (spread <= 1e-14 * (1 + std::fabs(fs[lo])) && size < 1e-9) break;
    if (size < 1e-12) break;

    Vec c(n, 0.0);
    for (std::size_t j = 0; j <= n; ++j)
      if (j != hi)
        for (std::size_t i = 0; i < n; ++i) c[i] += xs[j][i] / n;
    Vec xr = along(c, xs[hi], -1.0);
    double fr = f(xr);
    --budget;
    if (fr < fs[lo]) {
      Vec xe = along(c, xs[hi], -2.0);
      double fe = f(xe);
      --budget;
      if (fe < fr) xs[hi] = xe, fs[hi] = fe;
      else xs[hi] = xr, fs[hi] = fr;
    } else if (fr < fs[second]) {
      xs[hi] = xr, fs[hi] = fr;
    } else {
      bool outside = fr < fs[hi];
      Vec xk = along(c, outside ? xr : xs[hi], 0.5);
      double fk = f(xk);
      --budget;
      if (fk < (outside ? fr : fs[hi])) {
        xs[hi] = xk, fs[hi] = fk;
      } else {
        for (std::size_t j = 0; j <= n; ++j) {
          if (j == lo) continue;
          xs[j] = along(xs[lo], xs[j], 0.5);
          fs[j] = f(xs[j]);
          --budget;
        }
      }
    }
  }
  std::size_t best = std::min_element(fs.begin(), fs.end()) - fs.begin();
  return xs[best];
}

}  // namespace

Vec nelder_mead(const std::function<double(const Vec&)>& f, Vec x0, double step, int max_evaluations) {
  int budget = max_evaluations;
  double fx = f(x0);
  for (int restart = 0; restart < 20 && budget > 0; ++restart) {
    Vec x = run(f, x0, step, budget);
    double fnew = f(x);
    bool improved = fnew < fx - 1e-12 * (1 + std::fabs(fx));
    if (fnew < fx) x0 = x, fx = fnew;
    if (!improved) break;
    step *= 0.5;
  }
  return x0;
}

}  // namespace tpsim::fit
