// Rings over a direct NVLink mesh (DGX-1 hybrid cube mesh, 4-GPU boards with NV2/NV4 between
// every pair): NCCL's ring search (src/graph/search.cc, ncclTopoCompute) looks for as many
// rings (channels) as the links carry at one bandwidth per channel, each ring taking that
// bandwidth from every directed link it crosses, and keeps the set with the most aggregate
// bandwidth (channels x bandwidth per channel). One ring alone uses one link out of each GPU.
#pragma once
#include <functional>
#include <vector>

namespace tpsim {

struct MeshRingSet {
  std::vector<std::vector<int>> rings;  // each a cycle over all the GPUs, starting at the first
  double per_ring_Bps = 0;              // what each ring takes from every link it crosses
  double total_Bps() const { return per_ring_Bps * double(rings.size()); }
};

// NCCL's limit on the channels one search returns (search.cc: graph->maxChannels = MAXCHANNELS/2).
constexpr int MESH_MAX_RINGS = 16;

// The ring set of `gpus` over directed link capacities cap(a, b) (bytes/s; 0 where a and b
// share no direct link). For each per-ring bandwidth b in {c / k: c a link capacity, k = 1..4},
// rings are taken greedily, each the cycle whose smallest remaining capacity is largest (ties:
// the largest remaining sum, then the first in order), while one has b left on every link;
// the best b wins (ties: fewer rings). Empty when no cycle exists. At most 8 GPUs.
MeshRingSet mesh_rings(const std::vector<int>& gpus, const std::function<double(int, int)>& cap, int max_rings = MESH_MAX_RINGS);

}  // namespace tpsim
