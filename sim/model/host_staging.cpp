#include "host_staging.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace tpsim {
namespace {

// Host-copy rate: the published P2P-off all-reduce plateaus within one socket (busbw at 1 GiB),
// each below its PCIe lanes on the platform that describes it:
//   2x RTX 2080 Ti, PIX, Gen3 lanes 12 GB/s, 2 ranks: 4.00 GB/s
//     (calibrate/recorded/2x-rtx2080ti-pcie-pix-no-p2p.log);
//   8x A40 (NVLink pairs, two sockets), GPUs 1,2 (NODE), Gen4 lanes 24 GB/s, 2 ranks: 3.86 GB/s;
//   DGX A100, GPUs 4-7 (one socket), Gen4 lanes 24 GB/s, 4 ranks: 5.20 GB/s
//     (the last two: tests/data/measured/p2p_off_allreduce.csv, eugenesiow/LLM-Insights);
// their median. Gen4 lanes do not make it faster than Gen3: the host side sets the pace.
constexpr double HOST_COPY_BPS = 4.00e9;
// Across sockets: the same A40 box, GPUs 0,1,6,7 (two per socket, the ring crosses twice),
// 4 ranks: 1.44 GB/s busbw at 1 GiB (tests/data/measured/p2p_off_allreduce.csv).
constexpr double SOCKET_COPY_BPS = 1.44e9;
// Checked since on more published boxes (tests/data/measured/p2p_off_plateaus.csv): within a socket
// the nine runs' median plateau is 4.0 GB/s; across sockets the four boxes split, 1.07 (4x L40) and
// 1.41 (the A40) against 5.0 (4x A100 PCIe pod) and 14.9 (8x RTX 4090 on EPYC), and nothing they
// publish (CPU, NCCL version, launch mode) tells the two kinds apart. The rates stay; a staged
// collective's interval carries that spread (sim/model/intervals.cpp, STAGED_WITHIN and STAGED_ACROSS).

}  // namespace

StagingRates default_staging_rates() { return {HOST_COPY_BPS, SOCKET_COPY_BPS}; }

namespace {
// A NIC shares a PCIe switch with the GPU host `gpu_host` (PIX or PXB in `nvidia-smi topo -m`).
bool nic_behind_switch(const PlatformDesc& platform, const std::string& gpu_host) {
  auto is_nic = [&](const std::string& id) {
    return std::any_of(platform.links.begin(), platform.links.end(), [&](const LinkDesc& l) { return l.kind == LinkKind::nic && l.id == id; });
  };
  for (const auto& l : platform.links)
    if (l.kind == LinkKind::pcie_switch && std::find(l.members.begin(), l.members.end(), gpu_host) != l.members.end() &&
        std::any_of(l.members.begin(), l.members.end(), is_nic))
      return true;
  return false;
}
}  // namespace

bool nics_near_both(const PlatformDesc& platform, const GpuPath& path) {
  return !path.legs.empty() && nic_behind_switch(platform, path.legs.front().src_host) &&
         nic_behind_switch(platform, path.legs.back().dst_host);
}

StagedEdge staged_edge(const PlatformDesc& platform, const GpuPath& path) {
  StagedEdge e;
  const double inf = std::numeric_limits<double>::infinity();
  e.up_Bps = e.down_Bps = inf;
  for (std::size_t leg = 0; leg < path.legs.size(); ++leg)
    for (const auto& dl : path.legs[leg].links) {
      const LinkDesc& l = platform.links[dl.link];
      if (l.kind == LinkKind::upi) {
        e.crosses_socket = true;
        continue;
      }
      double& stage = leg == 0 ? e.up_Bps : e.down_Bps;
      stage = std::min(stage, l.bandwidth_Bps);
    }
  if (e.down_Bps == inf) e.down_Bps = e.up_Bps;  // a leg of UPI links only: the other leg's lane
  return e;
}

double staged_rate_Bps(const StagedEdge& e, const StagingRates& r) {
  const double rate = std::min({e.up_Bps, r.host_copy_Bps * r.scale, e.down_Bps});
  return e.crosses_socket ? std::min(rate, r.socket_copy_Bps * r.scale) : rate;
}

namespace {
// A measured pace below every known stage is the unknown stage's rate (1% for print rounding).
std::optional<double> below(double measured_Bps, double known_Bps) {
  if (!(measured_Bps > 0) || measured_Bps >= 0.99 * known_Bps) return std::nullopt;
  return measured_Bps;
}
}  // namespace

std::optional<double> implied_host_copy_Bps(const StagedEdge& e, double measured_Bps) {
  return below(measured_Bps, std::min(e.up_Bps, e.down_Bps));
}

std::optional<double> implied_socket_copy_Bps(const StagedEdge& e, double measured_Bps, double host_copy_Bps) {
  return below(measured_Bps, std::min({e.up_Bps, e.down_Bps, host_copy_Bps}));
}

std::string staging_note(const StagedEdge& e, const StagingRates& r) {
  const bool socket = e.crosses_socket, host_given = r.host_copy_given, socket_given = socket && r.socket_copy_given;
  std::string whence;
  if (!host_given && !socket_given)
    whence = "default copy rates from published P2P-off runs, whose plateaus span 1.0-27 GB/s from box to box (tests/data/measured/p2p_off_plateaus.csv; "
             "a calibration fitted on this box's P2P-off log replaces them: see its lines)";
  else if (host_given && (socket_given || !socket))
    whence = std::string("copy rates set by the scenario (collectives.host_copy_bandwidth") + (socket ? ", socket_copy_bandwidth)" : ")");
  else
    whence = host_given ? "host copy set by the scenario, socket copy the default" : "socket copy set by the scenario, host copy the default";
  // NCCL 2.14 and later (paths.cc ncclTopoCheckNet, called by the P2P and SHM transports) send a pair
  // through the network when both GPUs reach a NIC at PXB or closer faster than NCCL's model of
  // the path between them; across sockets that model is the socket link's constant (topo.h).
  const std::string nics = socket && e.nics_near_both
                               ? "; both GPUs of its slowest pair have a NIC behind their PCIe switch: NCCL 2.14 and later send such a "
                                 "pair through the NICs when they beat the socket link NCCL assumes (ncclTopoCheckNet; topo.h: 10 GB/s on "
                                 "Skylake to Ice Lake, 16 on AMD, 22 or 40 on Sapphire or Emerald Rapids), which tpsim does not model: "
                                 "the staged time may then be too slow (NVIDIA's figure, nccl#406: 12 GB/s instead of 6 to 9); "
                                 "NCCL_NET_DISABLE_INTRA=1 keeps the pair on shared memory, as simulated"
                               : "";
  const std::string scaled = r.scale != 1 ? fmt::format("; copies x {:.3g} with the SYS route (links.sys_path.bandwidth)", r.scale) : "";
  return fmt::format("host-staged (P2P off or not allowed): pace min(PCIe {:.3g}, host copy {:.3g}, PCIe {:.3g}{}) = {:.3g} GB/s, {}{}{}",
                     e.up_Bps / 1e9, r.host_copy_Bps * r.scale / 1e9, e.down_Bps / 1e9,
                     socket ? fmt::format(", socket copy {:.3g}", r.socket_copy_Bps * r.scale / 1e9) : "", staged_rate_Bps(e, r) / 1e9, whence,
                     scaled, nics);
}

bool above_staged_legs(const StagedEdge& e, double bus_Bps) { return bus_Bps > 1.01 * std::min(e.up_Bps, e.down_Bps); }

std::string ran_p2p_note(const StagedEdge& e, double bus_Bps, const std::string& what) {
  return fmt::format("host-staged on this platform, but {} ({:.3g} GB/s) is above the PCIe legs {:.3g} and {:.3g} GB/s: the log's GPUs "
                     "ran P2P (NCCL before 2.23 uses P2P across SYS on AMD hosts at any GPU count: give --nccl-version, or the "
                     "platform's p2p_level)",
                     what, bus_Bps / 1e9, e.up_Bps / 1e9, e.down_Bps / 1e9);
}

StagingFit fit_staging(const StagedEdge& e, double bus_Bps) {
  StagingFit f;
  const std::string lanes = fmt::format("PCIe legs {:.3g} and {:.3g} GB/s", e.up_Bps / 1e9, e.down_Bps / 1e9);
  if (above_staged_legs(e, bus_Bps)) {
    f.note = ran_p2p_note(e, bus_Bps, "the Simple line's bus bandwidth") + "; no copy rate fitted";
    return f;
  }
  if (!e.crosses_socket) {
    f.host_copy_Bps = implied_host_copy_Bps(e, bus_Bps);
    f.note = f.host_copy_Bps ? fmt::format("host-staged: host copy {:.3g} GB/s (the Simple line's bus bandwidth, below the {})",
                                           *f.host_copy_Bps / 1e9, lanes)
                             : fmt::format("host-staged: the {} set the Simple line's pace ({:.3g} GB/s); the host copy stays at "
                                           "its default", lanes, bus_Bps / 1e9);
    return f;
  }
  const double host = default_staging_rates().host_copy_Bps;
  if (bus_Bps > host && implied_host_copy_Bps(e, bus_Bps)) {
    // Faster than the default host copy allows: this box's copies through host memory run at least
    // that fast, within a socket and across; the measurement is the pace of both.
    f.host_copy_Bps = f.socket_copy_Bps = bus_Bps;
    f.note = fmt::format("host-staged across sockets: host copy and socket copy {:.3g} GB/s (the Simple line's bus bandwidth, "
                         "below the {} and above the default host copy {:.3g} GB/s, which is not this box's)",
                         bus_Bps / 1e9, lanes, host / 1e9);
    return f;
  }
  f.socket_copy_Bps = implied_socket_copy_Bps(e, bus_Bps, host);
  f.note = f.socket_copy_Bps ? fmt::format("host-staged across sockets: socket copy {:.3g} GB/s (the Simple line's bus bandwidth, "
                                           "below the {} and the default host copy {:.3g} GB/s)",
                                           *f.socket_copy_Bps / 1e9, lanes, host / 1e9)
                             : fmt::format("host-staged across sockets: the {} or the default host copy set the Simple line's "
                                           "pace ({:.3g} GB/s); the socket copy stays at its default", lanes, bus_Bps / 1e9);
  return f;
}

}  // namespace tpsim
