// Max-min fair sharing of links by flows that start together (progressive filling), the
// bandwidth model SimGrid's CM02 uses when latency is zero and there is no TCP window.
// Used as the closed form for a group of flows that no other activity touches: it gives the
// same completion time as running the flows in SimGrid (a test checks it).
#pragma once
#include <vector>

namespace tpsim {

struct SolverFlow {
  double bytes = 0;
  std::vector<int> resources;  // indices into the capacity vector (a link, or a link direction)
};

// Time until every flow has finished, each resource r shared max-min fairly at capacity[r] B/s.
double completion_time(const std::vector<SolverFlow>& flows, const std::vector<double>& capacity);

}  // namespace tpsim
