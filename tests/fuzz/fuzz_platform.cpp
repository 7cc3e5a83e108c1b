// Fuzz target: SimGrid platform XML as tpsim reads it (load_platform_file, pugixml). A
// platform that loads is then used as the cost model uses it: the path between every pair of
// GPUs (a ValueError when two GPUs are not connected is a reported mistake, not a finding).
// Paths must have a positive bottleneck bandwidth and a non-negative latency.
#include <cmath>

#include "config/platform_file.hpp"
#include "fuzz_common.hpp"
#include "model/topology.hpp"

using namespace tpsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::write_scratch("platform.xml", data, size);
  fuzz::accept_input_errors([&] {
    PlatformDesc p = load_platform_file(path);
    if (p.gpus.size() > 64) return;  // keep one input's work bounded (64^2 paths)
    Topology topo(std::move(p), {}, "");
    for (const auto& a : topo.platform().gpus)
      for (const auto& b : topo.platform().gpus) {
        if (a.index == b.index) continue;
        fuzz::accept_input_errors([&] {
          const GpuPath& gp = topo.path(a.index, b.index);
          if (!(gp.bottleneck_Bps > 0) || !(gp.latency_s >= 0) || std::isnan(gp.latency_s))
            fuzz::finding("a GPU path with no bandwidth or a negative latency");
        });
      }
  });
  return 0;
}
