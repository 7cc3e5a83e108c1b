// The pieces of "what would change the answer" and "how sure" that need no simulation: the
// threshold search, the intervals and confidence, the scaled model, the exercises' terms.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "config/model_card.hpp"
#include "config/model_scale.hpp"
#include "model/intervals.hpp"
#include "model/threshold_search.hpp"
#include "report/answer_report.hpp"
#include "report/exercises.hpp"

using namespace tpsim;

namespace {

// A configuration whose reference prefill has `gpu_ms` of GPU time and `coll_ms` of collectives,
// and whose TTFT p50 is that prefill.
ConfigResult config(const std::string& name, double gpu_ms, double coll_ms) {
  ConfigResult c;
  c.name = name;
  c.prefill.compute = gpu_ms * 1e-3, c.prefill.collectives = coll_ms * 1e-3;
  c.decode_step = c.prefill;
  c.ttft_s.p50 = c.tpot_s.p50 = c.e2e_s.p50 = c.prefill.total();
  c.requests_completed = 1;
  return c;
}

}  // namespace

TEST_CASE("the search finds a step change within 1% and says when there is none") {
  // Winner B from 140 up; base 16, limit 288: 5 scan points then bisection.
  auto step = [](double v) { return v >= 140 ? std::string("B") : std::string("A"); };
  SearchResult r = find_change({16, 288}, "A", step);
  REQUIRE(r.threshold);
  CHECK(*r.threshold >= 140);
  CHECK(*r.threshold <= 140 * 1.01 + 1e-9);
  CHECK(r.last_same < 140);
  CHECK(r.to == "B");
  CHECK(r.evaluations <= SCAN_POINTS + MAX_BISECTIONS);
  // Nothing changes: the five scan points only, no threshold.
  SearchResult none = find_change({16, 288}, "A", [](double) { return std::string("A"); });
  CHECK_FALSE(none.threshold);
  CHECK(none.evaluations == SCAN_POINTS);
  CHECK(none.last_same == doctest::Approx(288).scale(0));
}

TEST_CASE("whole numbers snap: the change at 6 tokens is found exactly, downwards") {
  SearchRange range{6144, 1, [](double v) { return std::max(1.0, std::round(v)); }};
  SearchResult r = find_change(range, "A", [](double v) { return v <= 6 ? std::string("B") : std::string("A"); });
  REQUIRE(r.threshold);
  CHECK(*r.threshold == 6);
  CHECK(r.last_same == 7);
}

TEST_CASE("a range down to zero is scanned linearly") {
  // Latency 1.5 us down to 0: B wins at or below 0.2 us.
  SearchResult r = find_change({1.5e-6, 0}, "A", [](double v) { return v <= 0.2e-6 ? std::string("B") : std::string("A"); });
  REQUIRE(r.threshold);
  CHECK(*r.threshold <= 0.2e-6);
  CHECK(*r.threshold >= 0.2e-6 * 0.99 - 1e-12);
}

TEST_CASE("intervals move GPU time and collective time by their own spreads") {
  // 100 ms GPU + 50 ms collectives, spreads 10% and 20%: 100 x 0.9 + 50 x 0.8 = 130 ms, 110 + 60 = 170 ms.
  const ConfigResult c = config("A", 100, 50);
  const FigureBounds b = bounds_of(c, 0.10, Spread{0.20, 0.20, ""});
  CHECK(b.prefill_s.low == doctest::Approx(0.130).scale(0));
  CHECK(b.prefill_s.high == doctest::Approx(0.170).scale(0));
  CHECK(b.ttft_p50_s.low == doctest::Approx(0.130).scale(0));
  CHECK(b.ttft_p50_s.high == doctest::Approx(0.170).scale(0));
  // e2e = TTFT + (e2e - TTFT) x decode ratio; here e2e = TTFT, so the same interval.
  CHECK(b.e2e_p50_s.high == doctest::Approx(0.170).scale(0));
}

TEST_CASE("confidence: robust only when the winner's worst beats every rival's best") {
  // A: 100 ms GPU time, +-10% -> 90..110 ms. B: 130 ms -> 117..143 ms: robust. C: 105 ms -> 94.5..115.5: too close.
  std::vector<ConfigResult> v{config("A", 100, 0), config("B", 130, 0)};
  for (auto& c : v) c.bounds = bounds_of(c, 0.10, Spread{});
  std::string why;
  CHECK(confidence_of(v, "A", "ttft", &why) == "robust");
  CHECK(why.find("TTFT p50 110.0 ms") != std::string::npos);
  CHECK(why.find("TTFT p50 117.0 ms") != std::string::npos);
  v.push_back(config("C", 105, 0));
  v.back().bounds = bounds_of(v.back(), 0.10, Spread{});
  CHECK(confidence_of(v, "A", "ttft", &why) == "too close to call");
}

TEST_CASE("a model scaled to a weight size keeps its layer shapes") {
  const ModelCard m = load_model_card(TPSIM_SOURCE_DIR "/workloads/models/llama-3.1-8b.yaml");
  // One layer: 2 B x (4096 x 6144 QKV + 4096 x 4096 O + 3 x 4096 x 14336 MLP + 2 x 4096 norms) = 436,224,000 B;
  // the rest: 2 B x (2 x 128256 x 4096 embeddings and LM head + 4096 final norm) = 2,101,354,496 B.
  CHECK(m.layer_bytes(1) == doctest::Approx(436224000.0).scale(0));
  CHECK(layers_for_weight_bytes(m, m.weight_bytes()) == 32);
  // 145 GB: round((145e9 - 2101354496) / 436224000) = round(327.58) = 328 layers.
  CHECK(layers_for_weight_bytes(m, 145e9) == 328);
  const ModelCard big = scaled_to_weight_bytes(m, 145e9);
  CHECK(big.num_layers == 328);
  CHECK(big.hidden_size == m.hidden_size);
  CHECK(big.weight_bytes() == doctest::Approx(328 * 436224000.0 + 2101354496.0).scale(0));
  CHECK(layers_for_weight_bytes(m, 1) == 1);  // never below one layer
}

TEST_CASE("the exercises' alpha, BW, S* and alpha* come from a plan and the model") {
  // A ring all-reduce at N = 4 with 62.4 us of latency and 8 GB/s bus bandwidth: alpha = 62.4 / 2(4-1) = 10.4 us,
  // S* = N x alpha x BW = 4 x 10.4e-6 x 8e9 = 332,800 B.
  CollectivePlan p;
  p.nranks = 4, p.latency_s = 62.4e-6, p.bus_bw_Bps = 8e9;
  const RingTerms t = ring_terms(p);
  CHECK(t.alpha_s == doctest::Approx(10.4e-6).scale(0));
  CHECK(t.crossover_B() == doctest::Approx(332800).scale(0));
  // The chapter's alpha* = M_w / (4 L B_mem) = 16.06e9 / (4 x 32 x 1.5e12) = 83.6 us ("about 84 us").
  ModelShape m;
  m.weight_bytes = 16.06e9, m.num_layers = 32, m.hbm_Bps = 1.5e12;
  CHECK(break_even_latency_s(m) == doctest::Approx(83.65e-6).scale(0).epsilon(0.001));
}

TEST_CASE("an input unchanged in both directions for the same reason says it once") {
  // Both directions of workload.rate stopped on the evaluation budget: one reason, not two joined.
  ScenarioResult r;
  r.what_would_change = {{.parameter = "workload.rate", .unit = "1/s", .base = 6.0, .direction = "above", .why = "the search stopped: budget spent"},
                         {.parameter = "workload.rate", .unit = "1/s", .base = 6.0, .direction = "below", .why = "the search stopped: budget spent"},
                         {.parameter = "workload.prompt_tokens", .unit = "tokens", .base = 1000.0, .direction = "above", .why = "no change up to 16000 tokens"},
                         {.parameter = "workload.prompt_tokens", .unit = "tokens", .base = 1000.0, .direction = "below", .why = "no change down to 1 tokens"}};
  const std::string text = table_what_would_change(r);
  CHECK(text.find("the search stopped: budget spent; the search stopped") == std::string::npos);
  CHECK(text.find("the search stopped: budget spent") != std::string::npos);
  CHECK(text.find("no change up to 16000 tokens; no change down to 1 tokens") != std::string::npos);
}
