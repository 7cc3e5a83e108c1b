// The platform as the cost model sees it: for each ordered pair of GPUs, the path class NCCL
// would assign (NVL, PIX, PXB, PHB, SYS, NET), whether P2P is used or data is staged through
// host memory (SHM), and the links the bytes cross. Built from the platform file's routes;
// scenario link overrides (a swept NVLink bandwidth, say) are applied here so the closed form
// and the SimGrid engine see the same numbers.
#pragma once
#include <functional>
#include <map>
#include <tuple>
#include <string>
#include <vector>

#include "config/platform_file.hpp"
#include "config/scenario.hpp"

namespace tpsim {

enum class PathClass { NVL = 0, PIX, PXB, PHB, SYS, NET };
const char* path_class_name(PathClass c);
// Parses "NVL", "PIX", ...; throws ValueError.
PathClass parse_path_class(const std::string& name);

struct DirectedLink {
  int link;        // index into PlatformDesc::links
  bool reverse;    // direction for SPLITDUPLEX links (ignored for SHARED)
  bool operator<(const DirectedLink& o) const { return link != o.link ? link < o.link : reverse < o.reverse; }
  bool operator==(const DirectedLink& o) const = default;
};

// One leg of a transfer: host to host along a route.
struct Leg {
  std::string src_host, dst_host;
  std::vector<DirectedLink> links;
};

struct GpuPath {
  PathClass path_class = PathClass::NVL;
  bool staged = false;          // through host memory (P2P off, unsupported, or beyond p2p_level)
  std::vector<Leg> legs;        // one leg for P2P; two (GPU->CPU, CPU->GPU) when staged
  double latency_s = 0;         // sum of link latencies along the legs
  double latency_added_s = 0;   // of which added by the scenario's link-latency overrides (over the platform's)
  double bottleneck_Bps = 0;    // narrowest link on the way
};

// The link kinds a SYS route crosses besides NVLink: PCIe lanes and switches, host bridges, the socket link.
bool on_sys_route(LinkKind k);

class Topology {
public:
  // Throws InputError (located at the platform file) when a needed route is missing. `nccl_version`:
  // the release whose default P2P level applies where none is explicit ("": a current one).
  Topology(PlatformDesc platform, const HardwareSpec& overrides, const std::string& p2p_level_override,
           std::string nccl_version = "");

  const PlatformDesc& platform() const { return platform_; }
  // HardwareSpec::sys_path_scale: already applied to the links; the copies through host memory take it too.
  double sys_path_scale() const { return sys_path_scale_; }
  // Path between two GPU indices; throws ValueError when they are not connected. NCCL's default
  // P2P level can depend on how many GPUs of the communicator share a node (AMD CPUs, see
  // config/p2p_policy.hpp): `local_gpus` is that number; without it, every GPU of from_gpu's node.
  const GpuPath& path(int from_gpu, int to_gpu) const;
  const GpuPath& path(int from_gpu, int to_gpu, int local_gpus) const;
  // The path a communicator of the GPUs `group` takes: its local GPUs are those of `group` on
  // from_gpu's node.
  const GpuPath& path_in(const std::vector<int>& group, int from_gpu, int to_gpu) const;
  // The level a communicator with `local_gpus` GPUs per node uses: "OFF", the scenario's or the
  // platform's p2p_level, or NCCL's default for the platform's CPU vendor.
  std::string p2p_level(int local_gpus) const;
  // True when the level is NCCL's default and the platform does not say its CPU vendor.
  bool cpu_vendor_assumed() const { return explicit_level_.empty() && platform_.cpu_vendor.empty(); }
  // When what tpsim does not know decides how `group` talks, a note saying so; "" otherwise:
  // - the CPU vendor, when the platform does not say it (a pair beyond Intel's level and within
  //   AMD's: P2P on AMD, staged on Intel);
  // - the NCCL release, when none is given (a pair staged by NCCL 2.23 and later that 2.9-2.22 run
  //   P2P: AMD or POWER hosts, more than 2 GPUs a node).
  std::string p2p_default_note(const std::vector<int>& group) const;
  // Whether a directed link is shared by both directions (SHARED) or per direction (SPLITDUPLEX).
  DirectedLink normalise(DirectedLink l) const;

private:
  // What `note` says of the first pair of `group` (in its order) on one node, both GPUs P2P-capable,
  // not across nodes: note(its path, the group's GPUs on that node, "GPU a - GPU b (CLASS)"); "" when
  // it says nothing of any.
  using PairNote = std::function<std::string(const GpuPath&, int, const std::string&)>;
  std::string first_pair_note(const std::vector<int>& group, const PairNote& note) const;
  std::string cpu_vendor_note(const std::vector<int>& group) const;
  std::string release_note(const std::vector<int>& group) const;
  GpuPath build(const GpuDesc& a, const GpuDesc& b, const std::string& level) const;
  PlatformDesc platform_;
  std::vector<double> latency_added_;  // per link: scenario override minus the platform's latency
  std::string explicit_level_;         // "OFF", the scenario's or the platform's level; "" = NCCL's default
  std::string nccl_version_;           // whose default ("": a current NCCL)
  double sys_path_scale_;              // HardwareSpec::sys_path_scale, applied to the links
  mutable std::map<std::tuple<int, int, std::string>, GpuPath> paths_;
};

}  // namespace tpsim
