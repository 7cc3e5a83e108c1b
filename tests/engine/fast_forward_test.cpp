// Fast-forward (engine.cpp): a replica runs the steps nothing else can observe without a SimGrid
// event each. Stepping one event per step must give the same records: the same requests, on the
// same replicas, with the same times.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "config/scenario.hpp"
#include "engine/scenario_runner.hpp"

using namespace tpsim;

namespace {
const std::string ROOT = TPSIM_SOURCE_DIR;

// Largest difference between the two runs' request times (s); requires the same requests.
double largest_difference(const ConfigResult& a, const ConfigResult& b) {
  REQUIRE(a.records.size() == b.records.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.records.size(); ++i) {
    const RequestRecord &x = a.records[i], &y = b.records[i];
    CHECK(x.id == y.id);
    CHECK(x.replica == y.replica);
    CHECK(x.preemptions == y.preemptions);
    for (auto [p, q] : {std::pair{x.scheduled_s, y.scheduled_s}, {x.first_token_s, y.first_token_s}, {x.finish_s, y.finish_s},
                        {x.max_itl_s, y.max_itl_s}})
      worst = std::max(worst, std::fabs(p - q));
  }
  return worst;
}
}  // namespace

TEST_CASE("fast-forward gives the records of stepping one SimGrid event per step") {
  // The speed benchmark's traffic (Poisson at 2 req/s, 6,144 + 300 tokens), 400 requests: one,
  // two and four replicas, whose steps end between arrivals and whose arrivals are routed.
  Scenario s = load_scenario(ROOT + "/bench/serving_10k.yaml");
  s.workload.requests = 400;
  RunOptions stepping;
  stepping.fast_forward = false;
  const ScenarioResult fast = run_scenario(s, {}), slow = run_scenario(s, stepping);
  REQUIRE(fast.configs.size() == 3);
  for (std::size_t i = 0; i < fast.configs.size(); ++i) {
    CAPTURE(fast.configs[i].name);
    CHECK(fast.configs[i].requests_completed == 400);
    CHECK(largest_difference(fast.configs[i], slow.configs[i]) == 0);
    CHECK(fast.configs[i].kv_peak_usage == slow.configs[i].kv_peak_usage);
  }
}
