// Fuzz target: calibration files (YAML written by `tpsim fit`), read with load_calibration. A
// file that loads is then used by the collective model on a fixed platform (the design
// exercise's 4 GPUs: NVLink pairs, SYS between them): all-reduces and all-gathers from 8 KiB to
// 64 MiB over 2 and 4 GPUs must take a finite, non-negative time.
#include <cmath>

#include "config/calibration.hpp"
#include "config/platform_file.hpp"
#include "fuzz_common.hpp"
#include "model/collective_model.hpp"

using namespace tpsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Topology topo(load_platform_file(std::string(TPSIM_SOURCE_DIR) + "/platforms/4gpu_nv12_sys.xml"), {}, "");
  const std::string path = fuzz::write_scratch("calibration.yaml", data, size);
  fuzz::accept_input_errors([&] {
    const Calibration cal = load_calibration(path);
    const CollectiveModel cm(topo, {}, &cal);
    for (const std::vector<int>& group : {std::vector<int>{0, 1}, std::vector<int>{0, 2}, std::vector<int>{0, 1, 2, 3}})
      for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather})
        for (double size_B : {8192.0, 1048576.0, 67108864.0}) {
          const CollectivePlan& p = cm.plan(op, size_B, group);
          if (!(std::isfinite(p.time_s()) && p.time_s() >= 0 && p.latency_s >= 0))
            fuzz::finding("a collective with a negative or non-finite time: " + std::to_string(p.time_s()));
        }
  });
  return 0;
}
