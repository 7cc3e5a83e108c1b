#include "log_settings.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

#include <fmt/format.h>

namespace tpsim::fit {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// NCCL's names (src/graph/tuning.cc, src/graph/paths.cc; NCCL matches them without case) -> tpsim's.
const std::map<std::string, std::string>& algorithms() {
  static const std::map<std::string, std::string> m{{"ring", "ring"}, {"tree", "tree"}, {"nvls", "nvls"}, {"nvlstree", "nvls"}};
  return m;
}
const std::map<std::string, std::string>& protocols() {
  static const std::map<std::string, std::string> m{{"ll", "LL"}, {"ll128", "LL128"}, {"simple", "Simple"}};
  return m;
}
const std::map<std::string, std::string>& p2p_levels() {
  static const std::map<std::string, std::string> m{{"nvl", "NVL"}, {"pix", "PIX"}, {"pxb", "PXB"}, {"phb", "PHB"}, {"sys", "SYS"}};
  return m;
}

// NCCL settings that change what a collective takes and that tpsim neither forces nor models: the
// buffers and chunks (steps and pipelining), threads and channels, NVLS and CollNet, the network's
// GPUDirect and queue pairs, the flush before a GPU reads a network receive, and a tuner plugin
// (NCCL's env docs; tuning.cc, enqueue.cc, transport/net.cc). With the values that leave NCCL as
// tpsim runs it (NCCL's defaults: 4 MiB buffers, NVLS where the box has it, no CollNet), unsaid.
struct Unmodelled {
  const char* name;
  std::vector<std::string> as_modelled;
};
const std::vector<Unmodelled>& unmodelled() {
  static const std::vector<Unmodelled> u{
      {"NCCL_BUFFSIZE", {"4194304"}}, {"NCCL_LL_BUFFSIZE", {}}, {"NCCL_LL128_BUFFSIZE", {}}, {"NCCL_NTHREADS", {}},
      {"NCCL_LL128_NTHREADS", {}}, {"NCCL_MIN_NCHANNELS", {}}, {"NCCL_MAX_NCHANNELS", {}}, {"NCCL_MIN_CTAS", {}},
      {"NCCL_MAX_CTAS", {}}, {"NCCL_NCHANNELS_PER_NET_PEER", {}}, {"NCCL_NVLS_ENABLE", {"1", "2"}},
      {"NCCL_COLLNET_ENABLE", {"0"}}, {"NCCL_NET_GDR_LEVEL", {}}, {"NCCL_NET_GDR_READ", {}}, {"NCCL_CROSS_NIC", {}},
      {"NCCL_IB_QPS_PER_CONNECTION", {}}, {"NCCL_IB_SPLIT_DATA_ON_QPS", {}}, {"NCCL_P2P_NET_CHUNKSIZE", {}},
      {"NCCL_P2P_NVL_CHUNKSIZE", {}}, {"NCCL_P2P_PCI_CHUNKSIZE", {}}, {"NCCL_NVLS_CHUNKSIZE", {}},
      {"NCCL_NVLSTREE_MAX_CHUNKSIZE", {}}, {"NCCL_NET_FORCE_FLUSH", {}}, {"NCCL_SHM_DISABLE", {"0"}}, {"NCCL_TUNER_PLUGIN", {}}};
  return u;
}

// Across nodes NCCL's own word for the transport it chose (Socket; AWS Libfabric or OFI: aws-ofi-nccl,
// EFA unless it selected libfabric's cxi provider, HPE Slingshot), else NCCL_IB_DISABLE=1 (with no other
// network named: a net plugin such as aws-ofi-nccl still runs with IB disabled).
void note_transport(const NcclLog& log, LogSettings& s) {
  if (const auto net = log.env.find("network"); net != log.env.end()) {
    const std::string name = lower(net->second.value);
    const auto provider = log.env.find("ofi provider");
    const bool cxi = provider != log.env.end() && lower(provider->second.value) == "cxi";
    const bool ofi = name.find("libfabric") != std::string::npos || name.find("ofi") != std::string::npos;
    s.net_transport = name == "socket" ? "tcp" : ofi ? (cxi ? "cxi" : "efa") : "";
    const char* over = s.net_transport == "tcp" ? "TCP sockets" : cxi ? "HPE Slingshot (libfabric cxi, simulated as RDMA)" : "AWS EFA";
    if (!s.net_transport.empty())
      s.notes.push_back({"--net-transport", "network",
                         fmt::format("the log's NCCL uses network {} (line {}{}): simulated over {} between nodes (net_transport {})",
                                     net->second.value, net->second.line,
                                     cxi ? fmt::format("; provider cxi, line {}", provider->second.line) : "", over, s.net_transport)});
  } else if (const auto it = log.env.find("NCCL_IB_DISABLE"); it != log.env.end() && it->second.value == "1") {
    s.net_transport = "tcp";
    s.notes.push_back({"--net-transport", "NCCL_IB_DISABLE",
                       fmt::format("the log ran with NCCL_IB_DISABLE=1 (line {}): simulated over TCP sockets between nodes "
                                   "(net_transport tcp)",
                                   it->second.line)});
  }
}

}  // namespace

LogSettings log_settings(const NcclLog& log) {
  LogSettings s;
  // name -> (its table, where tpsim puts it, the flag that says the same)
  const struct {
    const char* name;
    const std::map<std::string, std::string>* values;
    std::string* into;
    const char *flag, *as;
  } known[] = {{"NCCL_ALGO", &algorithms(), &s.algorithm, "--algorithm", "--algorithm"},
               {"NCCL_PROTO", &protocols(), &s.protocol, "--protocol", "--protocol"},
               {"NCCL_P2P_LEVEL", &p2p_levels(), &s.p2p_level, "--p2p", "p2p level"}};
  for (const auto& k : known) {
    const auto it = log.env.find(k.name);
    if (it == log.env.end()) continue;
    const LogSetting& e = it->second;
    const auto v = k.values->find(lower(e.value));
    if (v == k.values->end()) {
      s.notes.push_back({k.flag, k.name, fmt::format("the log ran with {}={} (line {}): not one tpsim can force (a list, an exclusion, or an "
                                    "algorithm it does not model), so tpsim chooses as without it",
                                    k.name, e.value, e.line)});
      continue;
    }
    *k.into = v->second;
    s.notes.push_back({k.flag, k.name,
                       fmt::format("the log ran with {}={} (line {}): simulated with {} {}", k.name, e.value, e.line, k.as, v->second)});
  }
  if (const auto it = log.env.find("NCCL_P2P_DISABLE"); it != log.env.end() && it->second.value == "1") {
    s.p2p_level = "OFF";
    s.notes.push_back({"--p2p", "NCCL_P2P_DISABLE",
                       fmt::format("the log ran with NCCL_P2P_DISABLE=1 (line {}): simulated with --p2p off", it->second.line)});
  }
  // A log whose ranks all ran on one host used no network, whatever it set.
  if (log.hosts != 1) note_transport(log, s);
  for (const Unmodelled& u : unmodelled()) {
    const auto it = log.env.find(u.name);
    if (it == log.env.end() || std::find(u.as_modelled.begin(), u.as_modelled.end(), it->second.value) != u.as_modelled.end()) continue;
    s.notes.push_back({"", u.name, fmt::format("the log ran with {}={} (line {}), which tpsim does not model: simulated with NCCL's "
                                               "default; where it changes what the log measured, the comparison shows it",
                                               u.name, it->second.value, it->second.line)});
  }
  return s;
}

}  // namespace tpsim::fit
