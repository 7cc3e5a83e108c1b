// The KV-cache transfer of a disaggregated request, from the prefill instance that computed it
// to the decode instance that continues it (engine/disaggregated.cpp runs it as SimGrid flows).
//
// Which bytes go where. Decode rank j stores kv_bytes_per_token_rank(model, decode_tp) bytes per
// token: K and V of its shard of the KV heads over every layer (with decode_tp > KV heads, a head
// is replicated and every copy is sent). It receives them from the prefill ranks that hold those
// heads; where the prefill pool replicates a head, from copy (j mod copies), to spread the load:
//   bytes per token, prefill rank i -> decode rank j
//     = kv_bytes_per_token_rank(decode_tp) x |heads(i) ∩ heads(j)| / |heads(j)|
// (vLLM's NIXL connector and SGLang read a decode rank's heads from the prefill ranks holding
// them when the two pools' TP differ). A request moves its prompt's KV: prompt tokens x the sum
// over shards; the first output token's KV is written by the decode instance itself.
//
// How long it takes alone: the longest route latency of its flows + the max-min time of the
// flows over their links (one flow per leg; a host-staged path's two legs run as a pipeline):
//   on one uncontended link, bytes / bandwidth + latency.
#pragma once
#include <vector>

#include "collective_model.hpp"
#include "config/model_card.hpp"

namespace tpsim {

struct KvShard {
  int prefill_rank = 0, decode_rank = 0;
  double bytes_per_token = 0;
};

// Throws ValueError when either TP cannot shard the model (check_tp).
std::vector<KvShard> kv_transfer_shards(const ModelCard& model, int prefill_tp, int decode_tp);
// Sum over shards: the bytes one prompt token moves.
double kv_transfer_bytes_per_token(const std::vector<KvShard>& shards);

struct KvFlow {
  Leg leg;
  double bytes_per_token = 0;
};
// The flows of a transfer between two instances (GPU lists in rank order).
struct KvRoute {
  std::vector<KvFlow> flows;
  double latency_s = 0;            // longest route latency among the flows
  PathClass worst_class = PathClass::NVL;
  bool staged = false;             // some flow goes through host memory
};
// Throws ValueError when a prefill GPU and a decode GPU are not connected.
KvRoute kv_route(const Topology& topology, const std::vector<int>& prefill_gpus, const std::vector<int>& decode_gpus,
                 const std::vector<KvShard>& shards);
// The transfer of `tokens` tokens' KV alone on the platform: latency + max-min flow time.
double kv_transfer_time_alone(const KvRoute& route, long tokens, const CollectiveModel& cm);

}  // namespace tpsim
