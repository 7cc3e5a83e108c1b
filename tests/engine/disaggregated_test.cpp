// Disaggregated serving on the engine, and a search's what-would-change scope: one test case per
// process (one SimGrid Engine each).
#include <doctest/doctest.h>

#include <algorithm>
#include <fmt/format.h>

#include "config/scenario.hpp"
#include "engine/scenario_runner.hpp"

using namespace tpsim;

namespace {
const std::string ROOT = TPSIM_SOURCE_DIR;
// Llama-3.1-8B bf16: 2 x 32 layers x 8 KV heads x 128 x 2 B = 131072 B of KV per token.
constexpr double KV_PER_TOKEN = 131072;
}  // namespace

TEST_CASE("one request alone: TTFT = its prefill + its KV transfer, which takes bytes / bandwidth + latency") {
  const ScenarioResult r = run_scenario(load_scenario(ROOT + "/tests/data/pd_alone.yaml"), {});
  const ConfigResult& c = r.configs.at(0);
  REQUIRE(c.disaggregation);
  REQUIRE(c.requests_completed == 1);
  // 8192 tokens x 131072 B = 1 GiB from GPU 0 to GPU 1: up GPU 0's NVSwitch port, down GPU 1's
  // (450 GB/s each), 0.5 + 0.5 us: 1073741824 / 450e9 + 1e-6 = 2.3871 ms.
  const double transfer = 8192 * KV_PER_TOKEN / 450e9 + 1e-6;
  CHECK(c.disaggregation->kv_transfer_s.p50 == doctest::Approx(transfer).epsilon(1e-9));
  CHECK(c.disaggregation->reference_transfer_s == doctest::Approx(transfer).epsilon(1e-12));
  CHECK(c.disaggregation->kv_wait_s.p50 == 0.0);
  CHECK(c.ttft_s.p50 == doctest::Approx(c.prefill.total() + transfer).epsilon(1e-9));
  // Decode alone at batch 1, context 8193..8207: the reference decode step (context 8192), to 1%.
  CHECK(c.tpot_s.p50 == doctest::Approx(c.decode_step.total()).epsilon(0.01));
  CHECK(c.records.at(0).replica == 1);  // the decode instance, after the one prefill instance
  CHECK(c.records.at(0).prefill_replica == 0);
}

TEST_CASE("a KV transfer and the next prefill's all-reduces share NVSwitch ports and slow each other") {
  const ScenarioResult r = run_scenario(load_scenario(ROOT + "/tests/data/pd_contention.yaml"), {});
  const ConfigResult& c = r.configs.at(0);
  REQUIRE(c.requests_completed == 2);
  CHECK(c.shared_links);
  const RequestRecord& first = c.records[0].first_token_s < c.records[1].first_token_s ? c.records[0] : c.records[1];
  const RequestRecord& second = &first == &c.records[0] ? c.records[1] : c.records[0];
  // Alone, each TP=2 rank sends 4 of the 8 heads (0.5 GiB) up its own port: 2^29 / 450e9 + 1 us.
  const double alone = 8192 * KV_PER_TOKEN / 2 / 450e9 + 1e-6;
  CHECK(c.disaggregation->reference_transfer_s == doctest::Approx(alone).epsilon(1e-12));
  // The first prompt's transfer runs beside the second prompt's prefill all-reduces: slower.
  CHECK(first.kv_transfer_s > alone * 1.01);
  // The second prefill takes longer than the first, which ran with nothing else on the links.
  const double first_prefill = first.first_token_s - first.kv_transfer_s - first.arrival_s;
  const double second_prefill = second.first_token_s - second.kv_transfer_s - second.kv_wait_s - (first.first_token_s - first.kv_transfer_s);
  MESSAGE("transfer " << first.kv_transfer_s << " s vs " << alone << " s alone; prefills " << first_prefill << " then " << second_prefill << " s");
  CHECK(second_prefill > first_prefill * 1.0001);
  // The second transfer runs alone (the prefill pool is idle by then): bytes / bandwidth + latency.
  CHECK(second.kv_transfer_s == doctest::Approx(alone).epsilon(1e-9));
}

TEST_CASE("an instance whose links only KV routes share runs its collectives as flows only while a transfer is in flight") {
  const Scenario s = load_scenario(ROOT + "/tests/data/pd_contention.yaml");
  const ScenarioResult r = run_scenario(s, {});
  RunOptions forced;
  forced.force_flows = true;
  const ScenarioResult all = run_scenario(s, forced);
  const ConfigResult &c = r.configs.at(0), &f = all.configs.at(0);
  // Forced, every collective of every step is a flow; by default the decode instance's steps after
  // the last transfer (no transfer in flight on its ports) take the closed form, and the prefill
  // that runs beside the first transfer still runs as flows (the contention case above).
  CHECK(c.flow_collectives > 0);
  CHECK(c.flow_collectives < f.flow_collectives);
  // The closed form and the flows agree where nothing contends: the same records, to 0.1%.
  REQUIRE(c.records.size() == f.records.size());
  for (std::size_t i = 0; i < c.records.size(); ++i) {
    CHECK(c.records[i].first_token_s == doctest::Approx(f.records[i].first_token_s).epsilon(1e-3));
    CHECK(c.records[i].finish_s == doctest::Approx(f.records[i].finish_s).epsilon(1e-3));
  }
}

TEST_CASE("a search's probes re-run its four best splits that fit and every split that does not, and say so") {
  const ScenarioResult r = run_scenario(load_scenario(ROOT + "/tests/data/search_scope.yaml"), {});
  REQUIRE(r.search);
  std::vector<std::string> fit;
  for (std::size_t i : r.search->ranking)
    if (r.configs[i].memory.fits) fit.push_back(r.configs[i].name);
  REQUIRE(fit.size() > 4);
  // "probes re-ran the 4 best splits that fit (A, B, C, D); not the 3 behind them (E, F, G)" (every split fits here)
  const std::string& scope = r.what_would_change_scope;
  CAPTURE(scope);
  CHECK(scope.find(fmt::format("the 4 best splits that fit ({}, {}, {}, {})", fit[0], fit[1], fit[2], fit[3])) != std::string::npos);
  CHECK(scope.find(fmt::format("not the {} behind them ({}", fit.size() - 4, fit[4])) != std::string::npos);
  // A new winner a probe finds is one of the splits it re-ran.
  for (const auto& c : r.what_would_change)
    if (!c.to.empty() && c.parameter != "objective") CHECK(std::find(fit.begin(), fit.begin() + 4, c.to) != fit.begin() + 4);
}
