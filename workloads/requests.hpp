// Requests a scenario sends: arrival times and prompt/output lengths, generated from the
// workload spec with the scenario's seed (Poisson, gamma, constant, or a closed batch at t=0),
// or read from a trace file (CSV or JSONL; the Azure LLM inference trace columns
// TIMESTAMP,ContextTokens,GeneratedTokens are accepted). Same seed, same requests.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config/scenario.hpp"

namespace tpsim {

struct Request {
  long id = 0;
  double arrival_s = 0;
  long prompt_tokens = 0;
  long output_tokens = 0;
  int line = 0;  // a trace row's line in its file (0: not from a trace)
};

// `replicas` is used for closed batches: `batch` sequences per replica, all at t = 0.
std::vector<Request> generate_requests(const WorkloadSpec& w, std::uint64_t seed, int replicas);

// Reads a trace; errors are located (file:line:col). Timestamps must not decrease.
std::vector<Request> read_trace(const std::string& path);

}  // namespace tpsim
