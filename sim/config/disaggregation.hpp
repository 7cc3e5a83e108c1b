// Prefill/decode disaggregation (xPyD) in a scenario: a configuration whose GPUs form a prefill
// pool and a decode pool, each of instances of one tensor-parallel degree.
//
//   - name: 2P6D                      # optional: "2P6D" (plus " TP=t" or " TP=p/d")
//     tp: 1                           # optional: every instance of both pools has tp GPUs
//     disaggregation:
//       prefill: [[0], [1]]           # prefill instances, each a GPU list
//       decode: [[2], [3], [4], [5], [6], [7]]
//
// Without `tp`, each pool's TP is the size of its instances (they must agree), so the pools may
// differ (prefill TP=2, decode TP=4). The configuration's `layout` is the prefill instances, then
// the decode instances; its `tp` is the decode pool's.
#pragma once
#include <string>
#include <vector>

#include "platform_file.hpp"
#include "scenario.hpp"
#include "yaml_source.hpp"

namespace tpsim {

// Reads a configuration that has a `disaggregation:` key (its other keys: name, tp).
ConfigSpec read_disaggregated_config(const YamlMap& m);

// The name of an xPyD configuration: "2P6D", "1P3D TP=2", "2P1D TP=2/4" (prefill/decode TP).
std::string xpyd_name(const DisaggregationSpec& d);

// Builds an xPyD configuration from its pools' GPU lists, for configurations that tpsim lists
// itself (the search): the first `prefill_instances` x `prefill_tp` GPUs of `gpus` form the
// prefill pool, the next `decode_instances` x `decode_tp` the decode pool. Throws ValueError
// when `gpus` has too few GPUs, repeats one, or a count is below 1.
ConfigSpec xpyd_config(const std::vector<int>& gpus, int prefill_instances, int prefill_tp, int decode_instances, int decode_tp);

// Every pool GPU must be on the platform: InputError at the instance that names one that is not.
void check_pools_on_platform(const DisaggregationSpec& d, const PlatformDesc& platform, const std::string& platform_path);

}  // namespace tpsim
