// `configs: auto` in a scenario, and its optional `search:` section:
//   configs: auto
//   search: {max_num_seqs: [64, 256], chunked_prefill: [false, true], fewest_gpus: true}
// `configs: auto` cannot be listed with fixed configurations (a located error).
#pragma once
#include <optional>

#include "scenario.hpp"
#include "yaml_source.hpp"

namespace tpsim {

// nullopt when the scenario lists its configurations; throws a located InputError for `auto`
// among listed configurations, or a `search:` section without `configs: auto`.
std::optional<SearchSpec> read_configs_auto(const YamlMap& scenario);

}  // namespace tpsim
