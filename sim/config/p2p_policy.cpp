#include "p2p_policy.hpp"

namespace tpsim {

const std::vector<std::string>& p2p_level_names() {
  static const std::vector<std::string> names{"NVL", "PIX", "PXB", "PHB", "SYS"};
  return names;
}

const std::vector<std::string>& cpu_vendor_names() {
  static const std::vector<std::string> names{"amd", "intel", "arm", "power", "zhaoxin"};
  return names;
}

const std::vector<std::string>& net_transport_names() {
  static const std::vector<std::string> names{"rdma", "tcp", "efa"};
  return names;
}

// paths.cc ncclTopoCheckP2p (see the header): AMD x86 and at most 2 GPUs -> SYS, else PXB.
std::string nccl_default_p2p_level(const std::string& cpu_vendor, int local_gpus) {
  return cpu_vendor == "amd" && local_gpus <= 2 ? "SYS" : "PXB";
}

std::string describe_p2p_default(const std::string& cpu_vendor) {
  if (cpu_vendor == "amd") return "SYS for communicators of up to 2 GPUs per node, PXB beyond (NCCL's default on AMD CPUs)";
  if (cpu_vendor.empty()) return "PXB (the platform does not say its cpu_vendor: Intel's default assumed)";
  return "PXB (NCCL's default on " + cpu_vendor + " CPUs)";
}

}  // namespace tpsim
