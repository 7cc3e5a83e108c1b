// What a measured nccl-tests log forced NCCL to do, as tpsim collective's settings: `--compare LOG`
// simulates the log's NCCL_ALGO, NCCL_PROTO, NCCL_P2P_DISABLE, NCCL_P2P_LEVEL, NCCL_IB_DISABLE and network (NcclLog::env)
// unless the command line says otherwise, and says which it took and which it could not.
#pragma once
#include <string>
#include <vector>

#include "nccl_log.hpp"

namespace tpsim::fit {

struct LogSettings {
  std::string algorithm;  // tpsim's --algorithm name ("ring", "tree", "nvls"); "" = not forced
  std::string protocol;   // tpsim's --protocol name ("LL", "LL128", "Simple"); "" = not forced
  std::string p2p_level;  // "OFF" (NCCL_P2P_DISABLE=1) or NVL, PIX, PXB, PHB, SYS; "" = not forced
  // Between nodes: "tcp" (network Socket, or NCCL_IB_DISABLE=1: NCCL's sockets), "efa" (network
  // AWS Libfabric or OFI: aws-ofi-nccl over EFA); "" = not said.
  std::string net_transport;
  // One per setting read: the tpsim collective flag that replaces it ("--algorithm"; "" for none)
  // and what was done with it (taken, or why not).
  struct Note {
    std::string flag, setting, text;
  };
  std::vector<Note> notes;
};

LogSettings log_settings(const NcclLog& log);

}  // namespace tpsim::fit
