// Reading a model card's fields (internal to sim/config): one field under the names different
// Hugging Face model classes give it, positive and within limits no real model comes near, and
// the readers of the architecture variants (experts, MLA, sliding windows) in model_variants.cpp.
#pragma once
#include <string>
#include <vector>

#include "model_card.hpp"
#include "yaml_source.hpp"

namespace tpsim::card_fields {

// Limits far beyond any real model (the largest have d ~ 16k, ~128 layers, ~256k vocab): past
// them a value is a typo, and the cost model's op lists and counts would grow without bound.
constexpr long MAX_DIMENSION = 1'048'576;
constexpr long MAX_LAYERS = 10'000;
constexpr long MAX_CONTEXT = 100'000'000;

bool given(const YamlMap& m, const std::string& key);
// The first of `keys` the card gives (one field under the names different model classes use).
std::string first_given(const YamlMap& m, const std::vector<std::string>& keys);
int positive_int(const YamlMap& m, const std::string& key, long max = MAX_DIMENSION);
// One field under any of its names; when none is given, the error names the first.
int positive_of(const YamlMap& m, const std::vector<std::string>& keys, long max = MAX_DIMENSION);

// Layer layouts tpsim does not model (Mamba, linear attention, per-layer blocks): refused at the key.
void refuse_unmodelled_layouts(const YamlMap& m);
// Experts (num_local_experts, n_routed_experts or num_experts; shared experts; leading dense
// layers) and the MLP widths; c.gated_mlp and the dimensions are read already.
void read_experts(const YamlMap& m, ModelCard& c);
// MLA (kv_lora_rank and its companions) and sliding-window layers (sliding_window, layer_types).
void read_attention_variants(const YamlMap& m, ModelCard& c);

}  // namespace tpsim::card_fields
