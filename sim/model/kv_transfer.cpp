#include "kv_transfer.hpp"

#include <algorithm>

#include "flow_solver.hpp"
#include "workloads/step_ops.hpp"

namespace tpsim {
namespace {

// The KV heads a rank holds, as [first, last) with its copy index when heads are replicated.
struct HeadShard {
  double first = 0, last = 0;
  int copy = 0, copies = 1;
};
HeadShard heads_of(int rank, int tp, int kv_heads) {
  if (tp <= kv_heads) {
    const double per = double(kv_heads) / tp;
    return {rank * per, (rank + 1) * per, 0, 1};
  }
  const int copies = tp / kv_heads, head = rank / copies;
  return {double(head), double(head + 1), rank % copies, copies};
}

}  // namespace

std::vector<KvShard> kv_transfer_shards(const ModelCard& model, int prefill_tp, int decode_tp) {
  check_tp(model, prefill_tp);
  const double per_decode_rank = kv_bytes_per_token_rank(model, decode_tp);
  const int heads = model.num_kv_heads;
  std::vector<KvShard> shards;
  for (int j = 0; j < decode_tp; ++j) {
    const HeadShard d = heads_of(j, decode_tp, heads);
    for (int i = 0; i < prefill_tp; ++i) {
      const HeadShard p = heads_of(i, prefill_tp, heads);
      if (p.copies > 1 && p.copy != j % p.copies) continue;
      const double overlap = std::min(p.last, d.last) - std::max(p.first, d.first);
      if (overlap > 0) shards.push_back({i, j, per_decode_rank * overlap / (d.last - d.first)});
    }
  }
  return shards;
}

double kv_transfer_bytes_per_token(const std::vector<KvShard>& shards) {
  double sum = 0;
  for (const auto& s : shards) sum += s.bytes_per_token;
  return sum;
}

KvRoute kv_route(const Topology& topology, const std::vector<int>& prefill_gpus, const std::vector<int>& decode_gpus,
                 const std::vector<KvShard>& shards) {
  KvRoute route;
  for (const auto& s : shards) {
    const GpuPath& path = topology.path(prefill_gpus[std::size_t(s.prefill_rank)], decode_gpus[std::size_t(s.decode_rank)]);
    route.latency_s = std::max(route.latency_s, path.latency_s);
    route.worst_class = std::max(route.worst_class, path.path_class);
    route.staged = route.staged || path.staged;
    for (const auto& leg : path.legs) route.flows.push_back({leg, s.bytes_per_token});
  }
  return route;
}

double kv_transfer_time_alone(const KvRoute& route, long tokens, const CollectiveModel& cm) {
  std::vector<SolverFlow> flows;
  for (const auto& f : route.flows) flows.push_back(cm.leg_flow(f.leg, f.bytes_per_token * double(tokens)));
  return route.latency_s + completion_time(flows, cm.resource_capacities());
}

}  // namespace tpsim
