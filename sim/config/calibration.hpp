// A calibration file (written by `tpsim fit`): measured collective curves reduced to
// per-protocol latency and bus bandwidth (and, where NCCL's choice by size shows in the curve,
// pieces of sizes with their own algorithm, protocol, latency and bus bandwidth), GEMM times,
// HBM copy bandwidth and launch overheads. The cost model uses it in place of datasheet defaults.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "gpu_catalog.hpp"
#include "util/nccl_terms.hpp"

namespace tpsim {


// NCCL's algorithms as tpsim models them: direct (2 ranks), ring, tree (all_reduce across nodes).

struct ProtocolFit {
  double latency_s = 0;      // whole fixed cost of one collective with this protocol at `nranks`, in the log's launch mode
  double bus_bw_Bps = 0;     // bus bandwidth (nccl-tests definition)
  bool fitted = false;       // false: not constrained by the data (a default or an extrapolation)
  // What carries to another box: the bus bandwidth as a fraction of the fitted rings' wire rate
  // (none when the fit did not know the box's links), and the algorithm the line ran (nvls when
  // its bus bandwidth is above the wire rate, which only in-switch reduction reaches).
  std::optional<double> wire_fraction = std::nullopt;
  // The bus bandwidth over the default model's for the line's algorithm and protocol on the fitted
  // group (CollectiveModel::default_bus_Bps): how far the box ran from the pace the model gives its
  // links, which carries through the target's default where the bound moves to another link (an
  // NVLS tree bound by 400 GB/s of NICs on B200, by its NVLink ports on H100).
  std::optional<double> model_fraction = std::nullopt;
  Algorithm algorithm = Algorithm::ring;
  bool latency_measured = true;    // the latency term is a real share of the time at a size where the line runs
  bool bandwidth_measured = true;  // likewise the bandwidth term
};

// Sizes NCCL ran with one (algorithm, protocol): above the previous piece's max_size (0 for
// the first) up to this one's, t(S) = latency_s + S * bus_factor / bus_bw_Bps at `nranks`.
struct CollectivePiece {
  Algorithm algorithm = Algorithm::ring;
  Protocol protocol = Protocol::Simple;
  double latency_s = 0;
  double bus_bw_Bps = 0;
  std::optional<double> max_size_B;  // none for the last piece: every larger size
};

// The most a line's bus bandwidth may exceed its fitted rings' wire rate (NVLS and a tree's halved
// network bytes reach past 1); more says the fit's platform was not the log's box.
constexpr double MAX_WIRE_FRACTION = 4;

// The path classes a calibration entry names (its `path_class`, `tpsim fit --path-class`): the
// topology's, and SHM for host-staged copies within a socket.
const std::vector<std::string>& calibration_path_class_names();

struct CollectiveCalibration {
  std::string source;        // log file it was fitted on
  CollectiveOp op = CollectiveOp::all_reduce;
  std::string path_class;    // one of calibration_path_class_names(), or "" (unknown: any path)
  int nranks = 0;
  int nodes = 1;
  // The envelope: what was measured. Beyond it the model extrapolates, and says so.
  std::string gpu;               // GPU model ("" when the log and the fit did not say)
  const GpuSpec* gpu_spec = nullptr;  // `gpu` found in the GPU table by either kind of name (nullptr: not there)
  std::string nccl_version;      // "" when the log does not print it
  std::string datatype = "float";  // the log's nccl-tests datatype: a reduction's pace is the type's
  int gpus_per_thread = 1;       // launch mode: nccl-tests -g N, one thread driving N GPUs (1: a process per GPU)
  double min_size_B = 0, max_size_B = 0;  // measured sizes (0, 0: not recorded)
  std::optional<double> wire_Bps;  // the fitted group's ring wire rate (all rings), when the fit knew the platform
  // The fitted platform's hosts, when it said (cpu_vendor_names(), net_transport_names(); "" otherwise):
  // the default latency a fitted one is compared with is that box's.
  std::string cpu_vendor, net_transport;
  // The fitted GPUs' NVLink within a node, "switch" or "direct" (GroupSummary::nvlink_fabric); "" when
  // not NVLink or not said: a slice of an NVSwitch node and a board of direct links differ in floor and pace.
  std::string nvlink_fabric;
  // What the log ran under (NCCL_ALGO, NCCL_PROTO; none: NCCL chose): its pieces are NCCL's steps
  // within it, which say nothing of NCCL's own choice of algorithm or protocol.
  std::optional<Algorithm> forced_algorithm;
  std::optional<Protocol> forced_protocol;
  // Host-staged logs: the pace of copies through host memory (within a socket, and across sockets)
  // the fit found on its platform (model/host_staging.hpp); none: the defaults.
  std::optional<double> host_copy_Bps, socket_copy_Bps;
  std::array<std::optional<ProtocolFit>, 3> protocols;  // the fastest protocol runs
  std::vector<CollectivePiece> pieces;  // when not empty, the piece holding the size runs instead
  // The fit's relative errors over the sizes it covers (its `residuals:` line), when recorded.
  std::optional<double> residual_median, residual_worst;
  // The first piece whose max_size is >= size_B or that has none; nullptr without pieces.
  const CollectivePiece* piece_at(double size_B) const;
};

struct GemmPoint {
  std::string op;
  int m = 0, n = 0, k = 0;
  std::string dtype;
  double time_s = 0;
};

struct Calibration {
  std::string file;
  std::string written_from;  // what `tpsim fit` read (its header line, or a top-level `source:`); "" when not said
  std::vector<CollectiveCalibration> collectives;
  std::vector<GemmPoint> gemm;
  // The GPU the GEMM and HBM tables were measured on (nullptr when the file does not say): on
  // another GPU a run carries their efficiencies through that GPU's rates (sim/model/step_cost.cpp).
  const GpuSpec* tables_gpu = nullptr;
  std::optional<double> hbm_copy_Bps;
  std::optional<double> kernel_launch_s;
  std::optional<double> graph_launch_s;
};

Calibration load_calibration(const std::string& path);
// The same from YAML text (what `tpsim fit` is about to write); `name` locates errors.
Calibration parse_calibration(const std::string& yaml, const std::string& name);

}  // namespace tpsim
