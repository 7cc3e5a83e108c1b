// A bigger (or smaller) model of the same family, for "what would change the answer": the card's
// layer count scaled so that its weights weigh about `target_B`, every layer's shapes kept. So
// weights, GEMM work, KV cache and the 2L all-reduces per step all grow with the layers, while
// head divisibility (which TP degrees are valid) is unchanged.
#pragma once
#include "model_card.hpp"

namespace tpsim {

// Layers for `target_B` bytes of weights: round((target - embeddings, LM head, norms) / one
// layer), at least `min_layers`. Throws ValueError when the card has no layers to scale.
int layers_for_weight_bytes(const ModelCard& m, double target_B, int min_layers = 1);
// The card with that many layers; its name says it was scaled.
ModelCard scaled_to_weight_bytes(const ModelCard& m, double target_B, int min_layers = 1);

}  // namespace tpsim
