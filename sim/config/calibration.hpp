// A calibration file (written by `tpsim fit`): measured collective curves reduced to
// per-protocol latency and bus bandwidth, GEMM times, HBM copy bandwidth and launch overheads.
// The cost model uses it in place of datasheet defaults.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace tpsim {

enum class Protocol { LL = 0, LL128 = 1, Simple = 2 };
constexpr std::array<Protocol, 3> ALL_PROTOCOLS{Protocol::LL, Protocol::LL128, Protocol::Simple};
const char* protocol_name(Protocol p);

struct ProtocolFit {
  double latency_s = 0;      // whole fixed cost of one collective with this protocol at `nranks`
  double bus_bw_Bps = 0;     // bus bandwidth (nccl-tests definition)
  bool fitted = false;       // false: not constrained by the data (a default or an extrapolation)
  // The largest size NCCL ran this protocol at, where the measured curve follows size ranges
  // rather than the fastest protocol: a size runs on the first protocol (LL, LL128, Simple)
  // whose max_size it does not exceed or that has none. Absent in every protocol: fastest wins.
  std::optional<double> max_size_B;
};

struct CollectiveCalibration {
  std::string source;        // log file it was fitted on
  std::string op;            // all_reduce | all_gather | reduce_scatter
  std::string path_class;    // NVL | PIX | PXB | PHB | SYS | SHM | NET | NVLS | "" (unknown)
  int nranks = 0;
  int nodes = 1;
  std::array<std::optional<ProtocolFit>, 3> protocols;
  bool ranged() const;  // some protocol has a max_size
};

struct GemmPoint {
  std::string op;
  int m = 0, n = 0, k = 0;
  std::string dtype;
  double time_s = 0;
};

struct Calibration {
  std::string file;
  std::vector<CollectiveCalibration> collectives;
  std::vector<GemmPoint> gemm;
  std::optional<double> hbm_copy_Bps;
  std::optional<double> kernel_launch_s;
  std::optional<double> graph_launch_s;
};

Calibration load_calibration(const std::string& path);

}  // namespace tpsim
