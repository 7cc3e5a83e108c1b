// What a GPU model brings to a platform: its NVLink generation and link count, its PCIe
// generation, the link rates and hop latencies `tpsim topo import` writes, and the host speed.
//
// Rates are one direction, SI (B/s). NVLink per link: NVLink2 (Turing) 25 GB/s, NVLink3 (A100)
// 25 GB/s, NVLink4 (H100/H200) 25 GB/s, NVLink5 (B200) 50 GB/s, so NV12 on an A100 is 300 GB/s
// and NV18 on an H100 450 GB/s. PCIe x16 achievable: Gen3 12 GB/s, Gen4 24 GB/s, Gen5 48 GB/s.
// Everything here that is not a datasheet value is an assumption, and the platform's header
// comment says so; a calibration replaces the rates that matter.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "topo_matrix.hpp"

namespace tpsim {

struct GpuLinkSpec {
  std::string gpu_model;       // name from the GPU table, written as the `gpu_model` property
  int nvlink_generation = 0;   // 0: no NVLink
  int nvlinks_per_gpu = 0;     // NVLinks on one GPU; NV# entries adding up to more mean an NVSwitch
  int pcie_generation = 4;
  double peak_bf16_flops = 0;  // dense bf16 tensor peak from the datasheet: the host `speed`
  bool p2p = true;             // the `p2p` property; `nvidia-smi topo -m` does not say, see the table
  bool p2p_given = false;      // set by `topo import --p2p`, not the GPU table

  double nvlink_bw_Bps = 0;       // one NVLink, one direction
  double pcie_bw_Bps = 0;         // a GPU's own x16 link, achievable, one direction (SPLITDUPLEX)
  double pcie_switch_bw_Bps = 0;  // a switch's uplink, SHARED by both directions: 2 x pcie (assumed)
  double host_bridge_bw_Bps = 0;  // a root complex with one port, SHARED: 2 x pcie (assumed); more ports, 2 x pcie each
  double upi_bw_Bps = 0;          // the inter-socket link, SHARED: 2 x pcie (assumed; the CPU is not in the matrix)
  double nic_bw_Bps = 50e9;       // 400 Gb/s (assumed; the matrix does not give NIC speeds)

  double nvlink_latency_s = 1e-6;
  double nvswitch_latency_s = 0.5e-6;  // per port, two ports per GPU pair: 1 us like a direct NVLink
  double pcie_latency_s = 1e-6;
  double pcie_switch_latency_s = 0.5e-6;
  double host_bridge_latency_s = 1e-6;
  double upi_latency_s = 1.5e-6;
  double nic_latency_s = 1e-6;
};

// The spec for a GPU model name (e.g. "A100-SXM4-80GB"). An unknown name is a ValueError whose
// message suggests the nearest known name (the caller adds the location: `--gpu`, a YAML key).
GpuLinkSpec gpu_link_spec(const std::string& gpu_model);

// SXM modules and Grace superchips always join their GPUs by NVLink: a note when their matrix has
// no NV# entry, most likely `nvidia-smi topo -mp` (PCIe paths only); nullopt otherwise.
std::optional<std::string> missing_nvlink_note(const TopoMatrix& m, const std::string& gpu_model);

}  // namespace tpsim
