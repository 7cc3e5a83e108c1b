// The interval of a collective staged through host memory at the default copy rates: a factor
// either way, the median over published P2P-off boxes of how far the defaults are from each box's
// plateau (tests/data/measured/p2p_off_plateaus.csv).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "model/host_staging.hpp"
#include "model/intervals.hpp"
#include "util/median.hpp"

using namespace tpsim;

namespace {

// Per box and side of the socket (crosses_socket yes / no; unknown left out): the median plateau
// of its runs, in B/s.
std::map<std::pair<std::string, std::string>, double> box_plateaus() {
  std::ifstream in(TPSIM_SOURCE_DIR "/tests/data/measured/p2p_off_plateaus.csv");
  std::map<std::pair<std::string, std::string>, std::vector<double>> runs;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
    REQUIRE(f.size() >= 5);
    if (f[3] != "unknown") runs[{f[0], f[3]}].push_back(std::stod(f[4]) * 1e9);
  }
  std::map<std::pair<std::string, std::string>, double> out;
  for (const auto& [key, v] : runs) out[key] = median(v);
  return out;
}

ConfigResult staged_config(double gpu_ms, double coll_ms) {
  ConfigResult c;
  c.name = "TP=2 staged";
  c.tp = 2;
  c.prefill.compute = gpu_ms / 1e3, c.prefill.collectives = coll_ms / 1e3;
  c.decode_step = c.prefill;
  c.ttft_s.p50 = c.e2e_s.p50 = c.prefill.total();
  CollectivePlan plan;
  plan.staged = true;
  c.prefill_collective = c.decode_collective = plan;
  return c;
}

}  // namespace

TEST_CASE("the staged spread is the median factor between the default copy rates and published plateaus") {
  const auto plateaus = box_plateaus();
  // 10 boxes: 6 within a socket (host copy 4.0 GB/s), 4 across sockets (socket copy 1.44 GB/s).
  CHECK(plateaus.size() == 10);
  const StagingRates d = default_staging_rates();
  std::vector<double> factors;
  for (const auto& [key, p] : plateaus) {
    const double rate = key.second == "yes" ? d.socket_copy_Bps : d.host_copy_Bps;
    factors.push_back(std::max(rate / p, p / rate));
  }
  // Sorted factors 1.00, 1.02, 1.03, 1.29, 1.30, 1.35, 1.55, 3.48, 6.78, 10.3: median (1.30 + 1.35) / 2.
  const double factor = median(factors);
  CHECK(factor == doctest::Approx(1.325).epsilon(0.005));
  const Spread s = collective_spread(staged_config(100, 50), nullptr, {});
  CHECK(s.up == doctest::Approx(factor - 1).epsilon(0.005));
  CHECK(s.down == doctest::Approx(1 - 1 / factor).epsilon(0.005));
  CHECK(s.source.find("p2p_off_plateaus.csv") != std::string::npos);
}

TEST_CASE("a staged collective's interval is a factor either way, the GPU part stays symmetric") {
  const ConfigResult c = staged_config(100, 50);
  const Spread coll = collective_spread(c, nullptr, {});
  const FigureBounds b = bounds_of(c, 0.017, coll);
  // low = 100 ms x (1 - 0.017) + 50 ms / 1.325 = 98.3 + 37.74 = 136.04 ms;
  // high = 100 ms x 1.017 + 50 ms x 1.325 = 101.7 + 66.25 = 167.95 ms.
  CHECK(b.prefill_s.low == doctest::Approx(0.098300 + 0.050 / 1.325));
  CHECK(b.prefill_s.high == doctest::Approx(0.101700 + 0.050 * 1.325));
  CHECK(b.collective_spread_down < b.collective_spread_up);
}

TEST_CASE("copy rates the scenario sets are not the defaults: the staged factor does not apply") {
  const Spread s = collective_spread(staged_config(100, 50), nullptr, {}, true);
  CHECK(s.up == s.down);
  CHECK(s.source.find("collectives from defaults") != std::string::npos);
}
