// Measured GEMM times and HBM copy bandwidth, as tpsim-calibrate records them, turned into
// what the cost model asks: "how long does an m x n x k GEMM take on this GPU?".
//
// GEMM csv: `op,m,n,k,dtype,time_us,tflops,eff_bw_GBps` (C[m,n] = A[m,k] B[k,n]; m is the
// token count). Only op, m, n, k, dtype and time_us are used; tflops and eff_bw_GBps are
// checked to be numbers (or empty) and otherwise left to the reader.
//
// Prediction. The roofline of a shape on a GPU with peak rate P and HBM bandwidth W is
//     t_roof = max(2mnk / P, (mk + kn + mn) * s / W),   s = bytes per element of dtype
// (all three matrices counted at the input width). A measured row has roofline
// efficiency e = t_roof / t_measured. For a query, the table takes the measured (n, k)
// nearest to the query's in |ln n - ln n'| + |ln k - ln k'|, interpolates ln e linearly in
// ln m between that group's measured m (constant beyond its ends), and returns t_roof / e.
// Deep in the memory-bound regime (2mnk / P at most 1/8 of the memory time) a GEMM streams the
// weights once whatever m is, and the rows' scatter there is the library's kernel choice for
// that one m (cuBLAS runs m = 1 as a GEMV): those rows of a group take their median ln e.
// At any other recorded shape this gives back the measured time exactly, whatever P and W are;
// P and W should be the calibrated GPU's, so that the efficiencies carry over sensibly to
// shapes that were not measured. On another GPU (`target`), the efficiencies are those on the
// measured GPU's rates and the roofline the target's: t = t_roof(target) / e(measured GPU), so a
// memory-bound shape scales with the HBM bandwidths and a compute-bound one with the peaks.
// Rows measured twice (same shape, dtype, another op) count with the geometric mean of their times.
//
// HBM csv: `bytes,time_us,copy_GBps` from device-to-device copies. A copy of b bytes reads
// b and writes b, so the HBM bandwidth is 2b / t (read + write counted), taken as the
// median over the 3 largest sizes (small copies are launch-bound). copy_GBps is checked to
// be a number and not used, so that its definition (b/t or 2b/t) cannot matter.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tpsim::fit {

// A GPU's rates, for the roofline: peak FLOP/s of the table's dtype and HBM bandwidth (B/s).
struct GemmRates {
  double peak_flops = 0, hbm_bw_Bps = 0;
};

struct GemmPoint {
  std::string op;  // which layer GEMM it was (qkv, o_proj, ...), informational
  std::int64_t m = 0, n = 0, k = 0;
  std::string dtype;  // bf16, fp16, fp8, fp32, tf32, int8 (and aliases, see dtype_bytes)
  double time_s = 0;
  int line = 0;       // csv line, 0 when not read from a file
};

// Bytes per element: bf16/bfloat16/fp16/f16/half 2; fp8/fp8_e4m3/fp8_e5m2/e4m3/e5m2/int8 1;
// fp32/f32/float/tf32 4; 0 for an unknown name.
int dtype_bytes(const std::string& dtype);

class GemmTable {
public:
  // Throws ValueError for a non-positive dimension or time, or an unknown dtype.
  explicit GemmTable(std::vector<GemmPoint> points);

  const std::vector<GemmPoint>& points() const { return points_; }

  // Achieved fraction of `peak_flops`: (2mnk / time) / peak_flops.
  static double flop_efficiency(const GemmPoint& p, double peak_flops);
  // The roofline time above (seconds).
  static double roofline_time(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dtype,
                              double peak_flops, double hbm_bw_Bps);

  // 2mnk / peak_flops at most 1/8 of the memory time: the rows whose efficiencies are pooled.
  static bool deep_memory_bound(double m, double n, double k, int bytes_per_element, double peak_flops, double hbm_bw_Bps);

  // Whether the table has a row of this dtype (aliases count: fp16 = f16 = half).
  bool has_dtype(const std::string& dtype) const;

  // Predicted time in seconds (see the preamble). Throws ValueError when the table has no
  // row of this dtype or an argument is not positive. `leave_out`, an index into points(),
  // predicts as if that row had not been measured (cross_check).
  double predict_time(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dtype, double peak_flops,
                      double hbm_bw_Bps, std::optional<std::size_t> leave_out = std::nullopt) const;
  // The same on another GPU: efficiencies on `measured_on`'s rates, the roofline on `target`'s.
  double predict_time_on(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dtype, const GemmRates& measured_on,
                         const GemmRates& target, std::optional<std::size_t> leave_out = std::nullopt) const;

private:
  // The rows of one (dtype, n, k): indices into points_, by m.
  struct Group {
    std::string dtype;  // canonical
    std::int64_t n = 0, k = 0;
    std::vector<std::size_t> rows;
  };
  std::vector<GemmPoint> points_;
  std::vector<Group> groups_;
};

// How far the table is from the measurements it holds: at each recorded shape, and for each
// shape left out in turn and predicted from the others (its (n, k) group's other m, or the
// nearest group). The roofline uses the highest rates the table itself shows: P = max 2mnk/t,
// W = max bytes/t (the cost model uses the simulated GPU's datasheet; at recorded shapes that
// makes no difference, between them it changes the roofline's bend).
struct GemmCrossCheck {
  int points = 0;
  double recorded_worst = 0;  // |predicted / measured - 1| at the recorded shapes, worst (0 but for pooled rows)
  int pooled = 0;              // rows deep in the memory-bound regime (their group's median efficiency)
  double median = 0, worst = 0;  // the same for each shape left out
  GemmPoint worst_point;
  double peak_flops = 0, hbm_bw_Bps = 0;
};
GemmCrossCheck cross_check(const GemmTable& table);

// Reads the GEMM csv; `file` names it in messages. Lines starting with '#' and blank lines
// are skipped. Throws InputError (file:line:col) for a wrong header, a row with the wrong
// number of fields, a bad number, an unknown dtype or a repeated (op, m, n, k, dtype).
GemmTable parse_gemm_csv(const std::string& text, const std::string& file);

// The GPU a GEMM or HBM csv says it was measured on: its first `# gpu: NAME` comment line
// (tpsim-calibrate writes one; a published table's header can), with where the name starts.
struct DeclaredGpu {
  std::string name;
  int line = 0, col = 0;
};
std::optional<DeclaredGpu> declared_gpu(const std::string& text);

struct HbmFit {
  double bw_Bps = 0;      // read + write bandwidth, median of 2b/t over the largest sizes
  int points_used = 0;
  double min_size_used_B = 0;
  int points_total = 0;
};

// Reads the HBM csv and fits it. Throws InputError like parse_gemm_csv.
HbmFit parse_hbm_csv(const std::string& text, const std::string& file);

}  // namespace tpsim::fit
