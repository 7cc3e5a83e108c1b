#include "p2p_policy.hpp"

#include "util/nccl_terms.hpp"

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
  static const std::vector<std::string> names{"rdma", "tcp", "efa", "cxi"};
  return names;
}

namespace {

// The rule of the release (see the header): 2.23 on, 2.9-2.22, or before 2.9.
enum class P2pRule { current, sys_but_intel, sys_but_intel_phb };

P2pRule rule_of(std::string_view nccl_version) {
  if (!nccl_before(nccl_version, 2, 23)) return P2pRule::current;
  return nccl_before(nccl_version, 2, 9) ? P2pRule::sys_but_intel_phb : P2pRule::sys_but_intel;
}

bool lowered_before_2_23(const std::string& cpu_vendor) {
  return cpu_vendor.empty() || cpu_vendor == "intel" || cpu_vendor == "arm" || cpu_vendor == "zhaoxin";
}

}  // namespace

std::string nccl_default_p2p_level(const std::string& cpu_vendor, int local_gpus, std::string_view nccl_version) {
  const P2pRule rule = rule_of(nccl_version);
  if (rule == P2pRule::current) return cpu_vendor == "amd" && local_gpus <= 2 ? "SYS" : "PXB";
  const bool intel = cpu_vendor.empty() || cpu_vendor == "intel";
  if (rule == P2pRule::sys_but_intel_phb && intel) return "PHB";
  return lowered_before_2_23(cpu_vendor) ? "PXB" : "SYS";
}

std::string describe_p2p_default(const std::string& cpu_vendor, std::string_view nccl_version) {
  const std::string release = nccl_version.empty() ? "" : " in NCCL " + std::string(nccl_version);
  if (rule_of(nccl_version) == P2pRule::current) {
    if (cpu_vendor == "amd")
      return "SYS for communicators of up to 2 GPUs per node, PXB beyond (NCCL's default on AMD CPUs" +
             (release.empty() ? std::string(" from 2.23; 2.9-2.22: SYS at any GPU count") : release) + ")";
    if (cpu_vendor.empty()) return "PXB (the platform does not say its cpu_vendor: Intel's default assumed" + release + ")";
    return "PXB (NCCL's default on " + cpu_vendor + " CPUs" + release + ")";
  }
  const std::string level = nccl_default_p2p_level(cpu_vendor, 2, nccl_version) + " at any GPU count";
  if (cpu_vendor.empty()) return level + " (the platform does not say its cpu_vendor: Intel's default" + release + " assumed)";
  return level + " (NCCL's default on " + cpu_vendor + " CPUs" + release + ", before 2.23)";
}

}  // namespace tpsim
