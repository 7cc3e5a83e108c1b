// Fuzz target: nccl-tests logs, read with tpsim::fit::parse_nccl_log; a log that parses is
// fitted (fit_collective, with and without LL128) and written as a calibration file
// (calibration_yaml), which must load back with load_calibration: `tpsim fit` must never write
// a file `tpsim` then refuses. Fitted latencies and bandwidths must be finite and positive
// for constrained protocols.
#include <cmath>

#include "config/calibration.hpp"
#include "fit/calibration_yaml.hpp"
#include "fit/collective_fit.hpp"
#include "fit/nccl_log.hpp"
#include "fuzz_common.hpp"

using namespace tpsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::accept_input_errors([&] {
    const fit::NcclLog log = fit::parse_nccl_log(text, "all_reduce_perf.log");
    if (log.rows.size() > 64) return;  // the fit's cost grows with the sizes; real sweeps have ~30
    for (bool ll128 : {true, false}) {
      fuzz::accept_input_errors([&] {
        fit::FitOptions opt;
        opt.ll128 = ll128;
        fit::CollectiveFit f = fit::fit_collective(log, opt);
        for (const auto& p : f.protocols)
          if (p.constrained && !(std::isfinite(p.latency_s) && p.latency_s >= 0 && std::isfinite(p.bus_bw_Bps) && p.bus_bw_Bps > 0))
            fuzz::finding("a fitted protocol with a non-finite or negative parameter: latency " + std::to_string(p.latency_s) +
                          " s, bus bandwidth " + std::to_string(p.bus_bw_Bps) + " B/s");
        for (const auto& p : f.pieces)
          if (!(std::isfinite(p.latency_s) && p.latency_s >= 0 && std::isfinite(p.bus_bw_Bps) && p.bus_bw_Bps > 0))
            fuzz::finding("a fitted piece with a non-finite or negative parameter");
        f.path_class = ll128 ? "NVL" : "PIX";
        fit::CalibrationInputs in;
        in.files = {"all_reduce_perf.log"};
        in.collectives.push_back(f);
        const std::string yaml = fit::calibration_yaml(in);
        const std::string path = fuzz::write_scratch("calibration.yaml", reinterpret_cast<const uint8_t*>(yaml.data()), yaml.size());
        try {
          load_calibration(path);
        } catch (const std::exception& e) {
          fuzz::finding(std::string("the calibration tpsim fit writes does not load back: ") + e.what() + "\n" + yaml);
        }
      });
    }
  });
  return 0;
}
