#include "workload_grounding.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "workloads/requests.hpp"

namespace tpsim {

// A closed batch is per replica: a split into R replicas starts R x batch sequences together. Said
// once per run where some configuration has several replicas, so a table that compares TP=8 with
// 2xTP=4 is not read as serving the same sequences.
std::optional<std::string> closed_batch_grounding(const Scenario& s) {
  if (s.workload.arrivals != ArrivalKind::closed) return std::nullopt;
  std::vector<std::string> several;
  for (const auto& c : s.configs)
    if (c.layout.size() > 1) several.push_back(fmt::format("{} serves {}", c.name, c.layout.size() * std::size_t(s.workload.batch)));
  if (several.empty()) return std::nullopt;
  return fmt::format("workload: a closed batch of {} sequence{} per replica, started together ({})", s.workload.batch,
                     s.workload.batch == 1 ? "" : "s", fmt::join(several, ", "));
}

// A closed batch whose prompts exceed the scheduler's token budget prefills over several steps, as a
// serving engine does (whole prompts a step without chunked prefill, the budget's tokens with it): said,
// since a static-batch benchmark (TensorRT-LLM's gptSessionBenchmark) prefills them in one pass and its
// first-token time is then one long step (a helper's TensorRT-LLM 0.9 comparison: -56% TTFT, +104% TPOT
// at batch 64 until it raised the budget).
std::optional<std::string> prefill_steps_grounding(const Scenario& s) {
  if (s.workload.arrivals != ArrivalKind::closed || s.workload.prompt.dist != LengthDist::fixed) return std::nullopt;
  const long batch = s.workload.batch, prompt = std::lround(s.workload.prompt.value), budget = s.scheduler.max_batched_tokens;
  if (batch * prompt <= budget) return std::nullopt;
  const long steps = s.scheduler.chunked_prefill ? (batch * prompt + budget - 1) / budget
                                                 : (batch + std::max(1L, budget / prompt) - 1) / std::max(1L, budget / prompt);
  if (steps <= 1) return std::nullopt;
  return fmt::format("workload: a replica's scheduler prefills the closed batch's {} prompts of {} tokens over {} steps of at most {} "
                     "tokens (scheduler.max_batched_tokens{}; attention-DP groups each schedule their share); a static batch "
                     "prefilled in one pass needs max_batched_tokens {} or more",
                     batch, prompt, steps, budget, s.scheduler.chunked_prefill ? ", chunked prefill" : ", whole prompts a step", batch * prompt);
}

// A trace's lengths are its requests': the reference step (the table's prefill and decode columns, the
// breakdown) and the memory check take their means, not the workload's default 512 + 128 tokens, and
// the run says so (a helper's trace of 16k-100k-token prompts showed a 512-token prefill).
std::optional<std::string> take_trace_reference(Scenario& s) {
  if (s.workload.arrivals != ArrivalKind::trace) return std::nullopt;
  const std::vector<Request> requests = generate_requests(s.workload, s.seed, 1);
  if (requests.empty()) return std::nullopt;
  double prompts = 0, outputs = 0;
  long min_prompt = requests.front().prompt_tokens, max_prompt = min_prompt;
  for (const auto& r : requests) {
    prompts += double(r.prompt_tokens), outputs += double(r.output_tokens);
    min_prompt = std::min(min_prompt, r.prompt_tokens), max_prompt = std::max(max_prompt, r.prompt_tokens);
  }
  const double n = double(requests.size());
  s.workload.prompt.value = std::round(prompts / n);
  s.workload.output.value = std::max(1.0, std::round(outputs / n));
  return fmt::format("workload: a trace of {} requests, prompts {}-{} tokens: the reference step (prefill and decode columns, "
                     "breakdown) and the memory check take its mean prompt, {:.0f} tokens, and mean output, {:.0f} tokens",
                     requests.size(), min_prompt, max_prompt, s.workload.prompt.value, s.workload.output.value);
}

}  // namespace tpsim
