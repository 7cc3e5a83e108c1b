#include "domains.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <map>

#include "util/error.hpp"

namespace tpsim {

std::vector<std::vector<int>> gpu_domains(const Topology& topology, PathClass worst) {
  const auto& gpus = topology.platform().gpus;
  boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS> graph(gpus.size());
  for (std::size_t a = 0; a < gpus.size(); ++a)
    for (std::size_t b = a + 1; b < gpus.size(); ++b) {
      try {
        if (topology.path(gpus[a].index, gpus[b].index).path_class <= worst) boost::add_edge(a, b, graph);
      } catch (const ValueError&) {
        // not connected at all: no edge
      }
    }
  std::vector<int> component(gpus.size());
  const int n = boost::connected_components(graph, component.data());
  std::vector<std::vector<int>> domains(n);
  for (std::size_t v = 0; v < gpus.size(); ++v) domains[component[v]].push_back(gpus[v].index);
  std::sort(domains.begin(), domains.end());
  return domains;
}

}  // namespace tpsim
