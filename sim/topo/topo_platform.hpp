// `nvidia-smi topo -m` -> SimGrid platform XML, following platforms/README.md.
//
// One `<zone id="box" routing="Full">` holds:
//   hosts  gpu<i> (gpu_model, index, p2p, cpu (its socket host), cpu_affinity) and cpu<s> per NUMA node (role=cpu);
//   links  nvlink_gpu<a>_gpu<b> per direct NV# pair (# x per-link rate, SPLITDUPLEX), or
//          nvswitch_gpu<i> per GPU when the NV# entries describe an NVSwitch fabric;
//          pcie_gpu<i> per GPU (SPLITDUPLEX); pcie_switch<k> per PCIe switch and host_bridge<h>
//          per root complex (SHARED), as topo_pcie_tree.hpp infers them; upi_cpu<s>_cpu<t> per
//          pair of NUMA nodes (SHARED); nic<k> per NIC (SPLITDUPLEX, on no route);
//   routes between every GPU pair over the links its code implies (NV#: the NVLink only; PIX:
//          pcie, switch, pcie; PXB: leaf, upstream, leaf switches; PHB: the host bridge; NODE: two
//          host bridges; SYS: host bridges and the UPI link), from every GPU to every CPU socket,
//          and between sockets. Routes are written once, src < dst, symmetrical; SPLITDUPLEX
//          links carry direction="UP" for the src -> dst way (a device's own link is UP leaving
//          it, DOWN entering it).
// Links are shared where the hardware is: every route that crosses a switch, host bridge or UPI
// link names the same link. The output depends only on the inputs (same bytes every run).
#pragma once
#include <string>

#include "topo/topo_gpu_links.hpp"
#include "topo/topo_matrix.hpp"

namespace tpsim {

// Throws InputError, located at the matrix cell in m.file, when the matrix and the GPU model
// disagree: NV# on a GPU without NVLink, NV# above the GPU's link count, or an NVSwitch fabric
// (NV# entries adding up to more links than one GPU has) in which some pair is not NV# alike.
// `cpu_vendor` (one of cpu_vendor_names(), or "" when not given) is written as the zone's
// cpu_vendor property, which NCCL's default P2P level follows (config/p2p_policy.hpp).
std::string platform_xml(const TopoMatrix& m, const GpuLinkSpec& spec, const std::string& cpu_vendor = "");

}  // namespace tpsim
