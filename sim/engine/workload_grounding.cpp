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
