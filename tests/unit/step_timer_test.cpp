// StepTimer (sim/model/step_timer.hpp) re-times only the attention ops per step; its time must be
// plan_step's closed_form_s() (to 1e-12: the attention is added to the memoized rest, not inside
// each layer's sum), for decode, prefill, mixed (chunked) batches, TP,
// PP and a host overhead that overlaps or adds.
#include <doctest/doctest.h>

#include "config/model_card.hpp"
#include "config/platform_file.hpp"
#include "model/step_timer.hpp"

using namespace tpsim;

namespace {
const std::string ROOT = TPSIM_SOURCE_DIR;
}

TEST_CASE("StepTimer gives plan_step's closed-form step time exactly") {
  const ModelCard model = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  const PlatformDesc platform = load_platform_file(ROOT + "/platforms/4gpu_nv12_sys.xml");
  for (const double host : {0.0, 3e-3})
    for (const bool overlap : {true, false}) {
      Scenario s;
      s.engine.host_overhead_s = host;
      s.engine.host_overlap = overlap;
      s.engine.host_per_sequence_s = host / 10;
      Topology topo(platform, s.hardware, "");
      CollectiveModel cm(topo, s.collectives, nullptr);
      const GpuModel gpu = gpu_model(*platform.gpus[0].spec, s, nullptr, 2, 2);
      for (const auto& [replica, pp] : {std::pair{std::vector<int>{0}, 1}, {std::vector<int>{0, 1}, 1}, {std::vector<int>{0, 1, 2, 3}, 1},
                                        {std::vector<int>{0, 1, 2, 3}, 2}}) {
        Parallelism par;
        par.tp = int(replica.size()) / pp, par.pp = pp;
        StepTimer timer(model, par, gpu, cm, replica);
        // The same (tokens, sequences) with growing contexts hits the memo: attention alone changes.
        const std::vector<std::vector<SequenceWork>> batches{
            {{100, 1}, {2000, 1}}, {{101, 1}, {2001, 1}}, {{5000, 1}, {7, 1}}, {{0, 6144}}, {{0, 512}, {300, 1}, {4000, 1}}};
        for (const auto& batch : batches) {
          CAPTURE(replica.size());
          CAPTURE(pp);
          CAPTURE(batch.size());
          const int tp = int(replica.size()) / pp;
          const double expected = plan_step(step_ops(model, tp, batch, pp), gpu, cm, replica).closed_form_s();
          CHECK(timer.closed_form_s(batch) == doctest::Approx(expected).scale(0).epsilon(1e-12));
        }
      }
    }
}
