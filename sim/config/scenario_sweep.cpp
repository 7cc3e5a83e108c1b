// What a scenario can sweep (one table: the key, its unit, how a value applies and why one is
// refused), its `sweep:` section and its `what_would_change:` probes.
#include "scenario_sweep.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "scenario_limits.hpp"
#include "util/spelling.hpp"

namespace tpsim {

namespace {

using namespace scenario_limits;

struct Sweepable {
  std::string name;
  std::string unit;              // printed unit of SI values
  std::optional<Quantity> quantity;  // how values are written; nullopt = plain number
  std::function<void(Scenario&, double)> apply;
  std::function<std::string(double)> refuse = nullptr;  // why a value is refused ("" or empty = accepted)
};

LinkOverride& link_override(Scenario& s, const std::string& kind) { return s.hardware.links[kind]; }

// A swept engine parameter applies to the scenario's engine and to every configuration's own.
void for_each_engine(Scenario& s, const std::function<void(EngineSpec&)>& f) {
  f(s.engine);
  for (auto& c : s.configs)
    if (c.engine) f(*c.engine);
}

const std::vector<Sweepable>& sweepables() {
  static const std::vector<Sweepable> table = [] {
    std::vector<Sweepable> t{
        {"collectives.fixed_latency", "s", Quantity::time, [](Scenario& s, double v) { s.collectives.fixed_latency_s = v; }},
        {"hardware.hbm_bandwidth", "B/s", Quantity::bandwidth, [](Scenario& s, double v) { s.hardware.hbm_bandwidth_Bps = v; },
         positive_value},
        {"workload.batch", "sequences", std::nullopt, [](Scenario& s, double v) { s.workload.batch = int(v); },
         [](double v) { return whole_in(v, 1, MAX_BATCH, "sequences per replica"); }},
        {"workload.prompt_tokens", "tokens", std::nullopt, [](Scenario& s, double v) { s.workload.prompt = {LengthDist::fixed, v}; },
         [](double v) { return whole_in(v, 1, MAX_TOKENS, "tokens per request"); }},
        {"workload.output_tokens", "tokens", std::nullopt, [](Scenario& s, double v) { s.workload.output = {LengthDist::fixed, v}; },
         [](double v) { return whole_in(v, 1, MAX_TOKENS, "tokens per request"); }},
        {"workload.rate", "requests/s", std::nullopt, [](Scenario& s, double v) { s.workload.rate_per_s = v; }, positive_value},
        {"engine.host_overhead", "s", Quantity::time, [](Scenario& s, double v) { for_each_engine(s, [v](EngineSpec& e) { e.host_overhead_s = v; }); }},
        {"engine.host_per_sequence", "s", Quantity::time,
         [](Scenario& s, double v) { for_each_engine(s, [v](EngineSpec& e) { e.host_per_sequence_s = v; }); }},
        {"engine.all_reduce_jitter", "s", Quantity::time,
         [](Scenario& s, double v) { for_each_engine(s, [v](EngineSpec& e) { e.all_reduce_jitter_s = v; }); }},
        {"model.weight_bytes", "B", Quantity::size, [](Scenario& s, double v) { s.model_weight_bytes = v; }, positive_value},
        // The SYS route as a whole (PCIe lanes and switches, host bridges, the socket link and, where
        // the route is host-staged, the copies through host memory): its slowest stage at v, every
        // stage scaled alike (engine/sys_path.hpp resolves the target against the platform).
        {"links.sys_path.bandwidth", "B/s", Quantity::bandwidth, [](Scenario& s, double v) { s.hardware.sys_path_Bps = v; },
         positive_value},
        {"collectives.host_copy_bandwidth", "B/s", Quantity::bandwidth, [](Scenario& s, double v) { s.collectives.host_copy_Bps = v; },
         positive_value},
        {"collectives.socket_copy_bandwidth", "B/s", Quantity::bandwidth,
         [](Scenario& s, double v) { s.collectives.socket_copy_Bps = v; }, positive_value},
    };
    for (const char* kind : {"nvlink", "nvswitch", "pcie", "pcie_switch", "host_bridge", "upi", "nic", "fabric"}) {
      std::string k = kind;
      t.push_back({"links." + k + ".bandwidth", "B/s", Quantity::bandwidth,
                   [k](Scenario& s, double v) { link_override(s, k).bandwidth_Bps = v; }, positive_value});
      t.push_back({"links." + k + ".latency", "s", Quantity::time,
                   [k](Scenario& s, double v) { link_override(s, k).latency_s = v; }});
    }
    return t;
  }();
  return table;
}

const Sweepable* find_sweepable(const std::string& name) {
  for (const auto& s : sweepables())
    if (s.name == name) return &s;
  return nullptr;
}

// A sweep value passes the checks of the key it stands for.
double sweep_value(const YamlMap& m, const YAML::Node& n, const Sweepable& p, const std::string& what = "sweep value") {
  const double v = p.quantity ? quantity_of(m.file(), n, *p.quantity, what) : number_of(m.file(), n, what);
  if (p.refuse)
    if (const std::string why = p.refuse(v); !why.empty()) m.fail(n, what + " " + count(v) + " of '" + p.name + "' " + why);
  return v;
}

}  // namespace

SweepSpec read_sweep(const YamlMap& m) {
  m.check_keys({"parameter", "values", "from", "to", "steps"});
  SweepSpec s;
  s.where = location_of(m.file(), m.raw());
  s.parameter = m.str("parameter");
  const Sweepable* p = find_sweepable(s.parameter);
  if (!p) {
    std::vector<std::string> names;
    for (const auto& x : sweepables()) names.push_back(x.name);
    m.fail(m.node("parameter"), "cannot sweep '" + s.parameter + "'" + did_you_mean(s.parameter, names));
  }
  s.unit = p->unit;
  if (m.has("values")) {
    YAML::Node v = m.node("values");
    if (!v.IsSequence() || v.size() < 2 || v.size() > 1000) m.fail(v, "'values' must be a list of 2 to 1000 values");
    for (const auto& x : v) s.values.push_back(sweep_value(m, x, *p));
  } else {
    const double from = sweep_value(m, m.node("from"), *p), to = sweep_value(m, m.node("to"), *p);
    const long steps = m.integer("steps");
    if (steps < 2 || steps > 1000) m.fail(m.node("steps"), "'steps' must be between 2 and 1000");
    for (long i = 0; i < steps; ++i) s.values.push_back(from + (to - from) * double(i) / double(steps - 1));
    for (double x : s.values)
      if (p->refuse && !p->refuse(x).empty())
        m.fail(m.node("steps"), "'steps' gives '" + p->name + "' the value " + count(x) + ", not a whole number; choose steps so that every value is whole, or list 'values'");
  }
  if (!std::is_sorted(s.values.begin(), s.values.end())) m.fail(m.raw(), "sweep values must be in increasing order");
  return s;
}

// `what_would_change: off`, or a list of { parameter, down_to, up_to }.
WhatWouldChangeSpec read_what_would_change(const YamlMap& parent) {
  WhatWouldChangeSpec w;
  const YAML::Node n = parent.node("what_would_change");
  if (n.IsScalar() && (n.Scalar() == "off" || n.Scalar() == "false")) return WhatWouldChangeSpec{false, {}};
  if (!n.IsSequence() || n.size() == 0 || n.size() > 100)
    parent.fail(n, "'what_would_change' must be 'off' or a list of 1 to 100 { parameter, down_to, up_to }");
  std::vector<std::string> names{"objective", "collectives.p2p"};
  for (const auto& x : sweepables()) names.push_back(x.name);
  for (const auto& item : n) {
    YamlMap m(parent.file(), item, "a what_would_change entry");
    m.check_keys({"parameter", "down_to", "up_to"});
    ProbeSpec p{m.str("parameter"), std::nullopt, std::nullopt, location_of(m.file(), m.raw())};
    if (std::find(names.begin(), names.end(), p.parameter) == names.end())
      m.fail(m.node("parameter"), "cannot probe '" + p.parameter + "'" + did_you_mean(p.parameter, names));
    const Sweepable* sw = find_sweepable(p.parameter);
    for (const char* key : {"down_to", "up_to"}) {
      if (!m.has(key)) continue;
      if (!sw) m.fail(m.node(key), "'" + p.parameter + "' takes no range: it has no numeric value");
      (std::string(key) == "up_to" ? p.up_to : p.down_to) = sweep_value(m, m.node(key), *sw, std::string("'") + key + "'");
    }
    if (p.down_to && p.up_to && !(*p.down_to < *p.up_to)) m.fail(m.node("up_to"), "'up_to' must be above 'down_to'");
    w.probes.push_back(p);
  }
  return w;
}

const std::vector<std::pair<std::string, std::string>>& sweepable_parameters() {
  static const auto list = [] {
    std::vector<std::pair<std::string, std::string>> l;
    for (const auto& s : sweepables()) l.emplace_back(s.name, s.unit);
    return l;
  }();
  return list;
}

void apply_sweep_value(Scenario& s, const std::string& parameter, double value) {
  const Sweepable* p = find_sweepable(parameter);
  if (!p) throw std::logic_error("unknown sweep parameter " + parameter);
  p->apply(s, value);
}

}  // namespace tpsim
