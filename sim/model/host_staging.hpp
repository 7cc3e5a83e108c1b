// Host-staged transfers (NCCL's SHM transport: NCCL_P2P_DISABLE=1, P2P unsupported, or a path
// beyond the P2P level). The bytes do not cross from GPU to GPU: the sending GPU writes each chunk
// into a buffer in host memory over its PCIe link, and the receiving GPU reads it from there over
// its own link. NCCL pipelines the chunks (NCCL_STEPS slots per channel), so the slowest stage
// sets the pace:
//   staged rate = min(up, host_copy, down [, socket_copy when the GPUs hang off different sockets])
// up and down are the narrowest links of the two legs (the GPUs' PCIe lanes on the platform),
// host_copy the rate at which GPUs move data through host memory (well below the lanes: GPU reads
// of host memory are latency-bound), socket_copy that rate when the buffer is in the other
// socket's memory, across UPI/xGMI. Defaults come from published P2P-off nccl-tests logs
// (host_staging.cpp); `tpsim fit` of a P2P-off log sets them for the box it measured.
#pragma once
#include <optional>
#include <string>

#include "topology.hpp"

namespace tpsim {

// The stages of one staged GPU-to-GPU edge.
struct StagedEdge {
  double up_Bps = 0;            // narrowest link GPU -> its socket
  double down_Bps = 0;          // narrowest link socket -> the receiving GPU, UPI/xGMI left out
  bool crosses_socket = false;  // the second leg crosses a UPI/xGMI link
  // Both GPUs have a NIC behind one of their PCIe switches (nics_near_both): NCCL 2.14 and later
  // may send such a pair through the NICs instead (staging_note). Set for the edge a note is about.
  bool nics_near_both = false;
};

// Host-copy and socket-crossing rates: a calibration's where it measured them, else the defaults.
struct StagingRates {
  double host_copy_Bps;
  double socket_copy_Bps;
  // Set by the scenario (collectives.host_copy_bandwidth / socket_copy_bandwidth): a calibration's
  // rate does not replace it.
  bool host_copy_given = false, socket_copy_given = false;
  double scale = 1;  // HardwareSpec::sys_path_scale: every copy through host memory (given, fitted or default) times it
};
StagingRates default_staging_rates();

// The stages of a staged path (path.staged must be true).
StagedEdge staged_edge(const PlatformDesc& platform, const GpuPath& path);
// Both ends of `path` have a NIC behind one of their PCIe switches (PIX or PXB; the platform's
// switch `members`). Only for notes: it scans the links, so it stays out of the ring search.
bool nics_near_both(const PlatformDesc& platform, const GpuPath& path);

// The edge's staged rate (bytes per second of bus bandwidth, Simple protocol).
double staged_rate_Bps(const StagedEdge& e, const StagingRates& r);

// What a measured staged bus bandwidth (Simple protocol) says of the rate the edge does not know:
// the host copy for an edge within a socket, the socket copy for one across sockets; nullopt when
// the measurement is not below the stages already known (the PCIe legs, and the host copy across
// sockets), which then set the pace.
std::optional<double> implied_host_copy_Bps(const StagedEdge& e, double measured_Bps);
std::optional<double> implied_socket_copy_Bps(const StagedEdge& e, double measured_Bps, double host_copy_Bps);

// A bus bandwidth above the edge's narrower PCIe leg (1% for print rounding): a staged copy crosses
// both legs, so a log that ran this fast did not stage (its GPUs ran P2P).
bool above_staged_legs(const StagedEdge& e, double bus_Bps);
// The note for a log whose largest bus bandwidth `bus_Bps` is above_staged_legs on a path tpsim
// stages: its GPUs ran P2P, as NCCL before 2.23 does across SYS on AMD hosts at any GPU count.
std::string ran_p2p_note(const StagedEdge& e, double bus_Bps, const std::string& what);

// What a staged log's Simple bus bandwidth sets on the platform it ran on: the host copy for an
// edge within a socket, the socket copy (with the default host copy) across sockets; neither when
// the PCIe legs set the pace. `note`: one line for the fit's report saying which, and why.
struct StagingFit {
  std::optional<double> host_copy_Bps, socket_copy_Bps;
  std::string note;
};
StagingFit fit_staging(const StagedEdge& e, double simple_bus_Bps);

// One line for a run's report: the staged pace of the edge with rates `r`, and where they come from.
std::string staging_note(const StagedEdge& e, const StagingRates& r);

}  // namespace tpsim
