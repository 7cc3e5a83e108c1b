// A SimGrid platform file as tpsim reads it (conventions in platforms/README.md), checked with
// pugixml before SimGrid ever sees it: SimGrid 3.32 aborts the process on a malformed file, so
// every mistake must be caught here and reported with its line and column.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpu_catalog.hpp"

namespace tpsim {

enum class LinkKind { nvlink, nvswitch, pcie, pcie_switch, host_bridge, upi, nic, fabric };
const char* link_kind_name(LinkKind k);

struct LinkDesc {
  std::string id;
  LinkKind kind;
  double bandwidth_Bps;
  double latency_s;
  bool split_duplex;
  std::vector<std::string> members = {};  // a PCIe switch's `members`: the GPU hosts and NIC links below it
};

struct GpuDesc {
  int index;            // the number users write in scenarios
  std::string host;     // SimGrid host name
  std::string model;    // name in the GPU catalog
  const GpuSpec* spec;  // datasheet
  int node = 0;
  bool p2p = true;      // false: driver reports P2P not supported
  std::string cpu;      // host id of its CPU socket ("" when the platform has none)
};

struct RouteHop {
  int link;       // index into PlatformDesc::links
  bool reverse;   // traversed DOWN (for SPLITDUPLEX)
};

struct PlatformDesc {
  std::string file;
  std::string p2p_level;                // NCCL_P2P_LEVEL equivalent (p2p_level_names()); "" = not given
  std::string cpu_vendor;               // cpu_vendor_names(); "" = not given (NCCL's default depends on it)
  std::string net_transport = "rdma";   // net_transport_names(): how NCCL's network steps travel between nodes
  std::vector<GpuDesc> gpus;            // sorted by index
  std::vector<std::string> cpus;        // CPU socket host ids
  std::vector<LinkDesc> links;
  // Directed routes between hosts (or routers) by id: (src, dst) -> hops. Both directions are stored.
  std::map<std::pair<std::string, std::string>, std::vector<RouteHop>> routes;
  // Multi-node platforms: the zone of every host and router, and the routes between sibling
  // zones (through their gateways), both directions stored.
  struct ZoneRoute {
    std::string gw_src, gw_dst;
    std::vector<RouteHop> hops;
  };
  std::map<std::string, std::string> zone_of;
  std::map<std::pair<std::string, std::string>, ZoneRoute> zone_routes;

  const GpuDesc* gpu(int index) const;  // nullptr when absent
  // The links from one host to another: a route of their zone, or, across nodes, the source's
  // route to its gateway, the zoneRoute, and the destination gateway's route to it.
  std::optional<std::vector<RouteHop>> route(const std::string& src, const std::string& dst) const;
};

PlatformDesc load_platform_file(const std::string& path);

}  // namespace tpsim
