// NCCL's P2P level and the CPU vendor it depends on: the names a platform or scenario may write,
// and the default level NCCL picks when NCCL_P2P_LEVEL is not set.
//
// NCCL src/graph/paths.cc, ncclTopoCheckP2p(), by release (NCCL's git history at each tag):
//   2.23.4 and later (unchanged to 2.30):
//     int p2pLevel = PATH_PXB;                     // "don't use P2P across CPU Host Bridges"
//     if (arch == X86 && vendor == AMD && system->nodes[GPU].count <= 2) p2pLevel = PATH_SYS;
//   2.9.6 to 2.22.3: p2pLevel = PATH_SYS, lowered to PATH_PXB on ARM, Intel and Zhaoxin CPUs only,
//     so AMD (and POWER) hosts use P2P across SYS at any GPU count;
//   2.7.3 to 2.8.4: as 2.9, but Intel CPUs other than Broadwell stop at PATH_PHB (Broadwell: PXB).
//   then ncclGetUserP2pLevel(&p2pLevel): NCCL_P2P_LEVEL / NCCL_P2P_DISABLE win.
// nodes[GPU] holds the communicator's GPUs on this host (topo.cc: "Detect only the GPU managed by
// this process. We'll get any others through XML fusion"), so with 2.23 on AMD a 2-GPU
// communicator uses P2P across SYS and a larger one stops at PXB.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace tpsim {

// "NVL", "PIX", "PXB", "PHB", "SYS": the values of a platform's `p2p_level` and of a scenario's
// `collectives: p2p_level` (NCCL_P2P_LEVEL; NODE is PHB to NCCL).
const std::vector<std::string>& p2p_level_names();

// "amd", "intel", "arm", "power", "zhaoxin": the values of a platform's `cpu_vendor`.
const std::vector<std::string>& cpu_vendor_names();

// "rdma", "tcp", "efa", "cxi": the values of a platform's `net_transport` (rdma: InfiniBand, RoCE; tcp: NCCL's
// sockets, or a TCP-based net plugin such as GPUDirect-TCPX/TCPXO; efa: AWS EFA through aws-ofi-nccl; cxi:
// HPE Slingshot through aws-ofi-nccl's CXI provider, not modelled apart from RDMA, but kept apart: a fit
// over one does not carry to the others).
const std::vector<std::string>& net_transport_names();

// NCCL's default level for a communicator with `local_gpus` GPUs on one host, in the release
// `nccl_version` ("2.19.3", "2.8.3+cuda11.1"; "" or unreadable: a current one, 2.23 on; a release
// before 2.7 takes 2.7's rule). `cpu_vendor` is one of cpu_vendor_names(), or "" when unknown
// (then Intel's level, tpsim's default before it read the vendor).
std::string nccl_default_p2p_level(const std::string& cpu_vendor, int local_gpus, std::string_view nccl_version = "");

// One line for reports: where the level comes from, e.g. "PXB (NCCL's default on intel CPUs)".
std::string describe_p2p_default(const std::string& cpu_vendor, std::string_view nccl_version = "");

}  // namespace tpsim
