#include "sys_path.hpp"

#include <algorithm>

#include "model/host_staging.hpp"
#include "model/topology.hpp"

namespace tpsim {
namespace {

// Whether a SYS route of the platform runs host-staged (beyond the P2P level, or P2P off).
bool sys_routes_staged(const Topology& topo) {
  const auto& gpus = topo.platform().gpus;
  for (const auto& a : gpus)
    for (const auto& b : gpus)
      if (a.index < b.index && a.node == b.node) {
        const GpuPath& path = topo.path(a.index, b.index);
        if (path.path_class == PathClass::SYS && path.staged) return true;
      }
  return false;
}

}  // namespace

std::optional<double> sys_path_bandwidth(const Scenario& s, const Inputs& in) {
  const Topology topo(in.platform, s.hardware, s.collectives.p2p_level, s.collectives.nccl_version);
  std::optional<double> low;
  for (const auto& l : topo.platform().links)
    if (on_sys_route(l.kind)) low = std::min(low.value_or(l.bandwidth_Bps), l.bandwidth_Bps);
  if (low && sys_routes_staged(topo)) {
    // The slower copy: the socket copy (the scenario's or the default), or the host copy when slower.
    const StagingRates d = default_staging_rates();
    const double copy = std::min(s.collectives.host_copy_Bps.value_or(d.host_copy_Bps), s.collectives.socket_copy_Bps.value_or(d.socket_copy_Bps));
    low = std::min(*low, copy * topo.sys_path_scale());
  }
  return low;
}

void apply_swept_value(Scenario& s, const Inputs& in, const std::string& parameter, double v) {
  apply_sweep_value(s, parameter, v);
  const auto target = s.hardware.sys_path_Bps;
  if (!target) return;
  s.hardware.sys_path_Bps.reset();
  if (const auto now = sys_path_bandwidth(s, in)) s.hardware.sys_path_scale *= *target / *now;
}

}  // namespace tpsim
