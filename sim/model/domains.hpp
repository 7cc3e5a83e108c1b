// Connectivity questions about a box, answered with Boost.Graph on the graph whose vertices are
// GPUs and whose edges join pairs of a given path class or better: the NVLink domains (connected
// components over NVL pairs) say which TP degrees can keep every all-reduce on NVLink.
#pragma once
#include <vector>

#include "topology.hpp"

namespace tpsim {

// GPU indices grouped into connected components of the graph of pairs whose path class is at
// most `worst` (NVL: NVLink domains). Components are sorted by their smallest GPU.
std::vector<std::vector<int>> gpu_domains(const Topology& topology, PathClass worst);

}  // namespace tpsim
