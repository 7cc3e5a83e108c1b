// A scenario's `sweep:` (one parameter over values) and `what_would_change:` (the parameters to
// probe) sections, and the table of what can be swept. Internal to sim/config.
#pragma once
#include "scenario.hpp"
#include "yaml_source.hpp"

namespace tpsim {

SweepSpec read_sweep(const YamlMap& m);
// `what_would_change: off`, or a list of { parameter, down_to, up_to }.
WhatWouldChangeSpec read_what_would_change(const YamlMap& parent);

}  // namespace tpsim
