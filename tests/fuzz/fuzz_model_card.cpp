// Fuzz target: model cards (.yaml) and Hugging Face config.json (when the input starts with
// '{'), read with load_model_card. A card that loads is then sharded the way a scenario would
// shard it (check_tp for TP = 1..8, the ops of a decode step): the sizes derived from it must
// be finite and positive.
#include <cmath>

#include "config/model_card.hpp"
#include "fuzz_common.hpp"
#include "workloads/step_ops.hpp"

using namespace tpsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const bool json = size > 0 && data[0] == '{';
  const std::string path = fuzz::write_scratch(json ? "config.json" : "model.yaml", data, size);
  fuzz::accept_input_errors([&] {
    const ModelCard card = load_model_card(path);
    if (!(card.weight_bytes() > 0) || !std::isfinite(card.weight_bytes())) fuzz::finding("weights not finite and positive");
    for (int tp = 1; tp <= 8; ++tp) {
      fuzz::accept_input_errors([&] {
        check_tp(card, tp);
        const double w = weight_bytes_per_rank(card, tp), kv = kv_bytes_per_token_rank(card, tp);
        if (!(w > 0 && std::isfinite(w) && kv > 0 && std::isfinite(kv))) fuzz::finding("per-rank bytes not finite and positive");
        const StepOps ops = step_ops(card, tp, {{128, 1}, {0, 16}});
        for (const Op& op : ops.flatten())
          if (!(op.flops >= 0 && op.bytes >= 0 && std::isfinite(op.flops) && std::isfinite(op.bytes)))
            fuzz::finding(std::string("op ") + op.name + " has a negative or non-finite cost");
      });
    }
  });
  return 0;
}
