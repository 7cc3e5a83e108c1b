#include "what_would_change.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <numeric>
#include <set>
#include <variant>

#include "config/model_scale.hpp"
#include "model/search_summary.hpp"
#include "model/topology.hpp"
#include "model/threshold_search.hpp"
#include "sys_path.hpp"
#include "util/units.hpp"

namespace tpsim {
namespace {

constexpr double INF = std::numeric_limits<double>::infinity();
// A configuration is skipped only when its uncontended bound, lowered by this margin, still loses
// to the best simulated score: the margin covers a prefill split by the token budget (chunks read
// the weights again and run narrower GEMMs, which the one-step reference does not).
constexpr double BOUND_MARGIN = 0.9;

struct Probe {
  std::string parameter, unit;
  double base = 0;
  std::optional<double> down = {}, up = {};  // how far to search each way (nullopt: not that way)
  std::function<double(double)> snap = [](double v) { return v; };
};

// A lower bound on a configuration's score from its uncontended reference steps: for a closed
// batch of fixed lengths, TTFT is at least the batch's prefill and every decode step at least
// the first one (contention and longer contexts only add). -inf where no bound is known.
double score_bound(const ConfigResult& ref, const Scenario& s) {
  const WorkloadSpec& w = s.workload;
  const bool simple = w.arrivals == ArrivalKind::closed && w.prompt.dist == LengthDist::fixed && w.output.dist == LengthDist::fixed &&
                      !s.scheduler.chunked_prefill;
  if (!simple) return -INF;
  switch (s.objective) {
    case Objective::ttft: return ref.prefill.total() * BOUND_MARGIN;
    case Objective::tpot: return ref.decode_step.total() * BOUND_MARGIN;
    case Objective::latency: return (ref.prefill.total() + (w.output.value - 1) * ref.decode_step.total()) * BOUND_MARGIN;
    default: return -INF;
  }
}

// Every configuration at one point: reference steps for all, serving runs for those that can win.
std::vector<ConfigResult> evaluate(const Scenario& p, const Inputs& in, const std::string& always = "") {
  Topology topo(in.platform, p.hardware, p.collectives.p2p_level, p.collectives.nccl_version);
  CollectiveModel cm(topo, p.collectives, in.calibration.get());
  const RunOptions quiet;
  std::vector<ConfigSpec> specs;
  std::vector<ConfigResult> out;
  std::vector<double> bound;
  for (const auto& c : p.configs) {
    specs.push_back(placed_config(p, in, cm, c, nullptr));
    out.push_back(run_config(p, in, specs.back(), topo, cm, quiet, false));
    bound.push_back(out.back().memory.fits ? score_bound(out.back(), p) : INF);
  }
  std::vector<std::size_t> order(out.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return bound[a] < bound[b]; });
  double best = INF;
  for (std::size_t i : order) {
    if (!out[i].memory.fits || (bound[i] > best && out[i].name != always)) continue;
    out[i] = run_config(p, in, specs[i], topo, cm, quiet, true);
    best = std::min(best, score(out[i], p.objective));
  }
  return out;
}

struct Stop {
  std::string why;
};

// The run time of the whole search is bounded by a budget of simulated work, counted without a
// clock (so output stays deterministic) from what each evaluation actually ran, in microseconds
// of this 2-core machine: per output token simulated, per SimGrid wait (a step slept, a flow,
// a transfer) and per configuration planned: 0.05 us a token (bench/: 9.0 M output tokens of the
// 10,000-request run in 0.49 s of CPU) and 3 us a wait (the main job's 0.23 M waits of its flows
// in 0.8 s). The budget is 2.5 s of it, so that a search's answer stays within its 10 s
// (bench/); probes past it say they were not searched.
constexpr double WORK_BUDGET_US = 2.5e6;
constexpr double TOKEN_US = 0.05, WAIT_US = 3, PLAN_US = 1000;

double evaluation_work_us(const std::vector<ConfigResult>& configs) {
  double w = 0;
  for (const auto& c : configs) {
    double tokens = 0;
    for (const auto& r : c.records) tokens += double(r.output_tokens);
    w += tokens * TOKEN_US + double(c.events) * WAIT_US + PLAN_US;
  }
  return w;
}

// The budget's work so far; an evaluation starts only while some is left.
struct Budget {
  double spent_us = 0;
  void check() const {
    if (spent_us >= WORK_BUDGET_US)
      throw Stop{fmt::format("tpsim's budget of {:.1f} s of simulation for this scenario is spent (what_would_change: lists fewer inputs)",
                             WORK_BUDGET_US / 1e6)};
  }
  void spend(const std::vector<ConfigResult>& evaluated) { spent_us += evaluation_work_us(evaluated); }
};

// The configurations with the probed input at v. An input error at a what-if point (a prompt
// beyond the context, say) ends the search there: it is not the user's mistake.
std::vector<ConfigResult> evaluate_at(const Scenario& s, const Inputs& in, const std::string& parameter, double v, Budget& budget,
                                     const std::string& always = "") {
  budget.check();
  Scenario point = s;
  apply_swept_value(point, in, parameter, v);
  try {
    std::vector<ConfigResult> at = parameter == "model.weight_bytes" ? evaluate(point, with_scenario_model(in, point), always)
                                                                     : evaluate(point, in, always);
    budget.spend(at);
    return at;
  } catch (const InputError& e) {
    throw Stop{e.what()};
  } catch (const ValueError& e) {
    throw Stop{e.what()};
  }
}

const ConfigResult* find(const std::vector<ConfigResult>& v, const std::string& name) {
  for (const auto& c : v)
    if (c.name == name) return &c;
  return nullptr;
}

// What happens at the threshold, in numbers (with the new winner's prefill all-reduce where a link changed).
std::string describe(const std::vector<ConfigResult>& at, const std::string& from, const std::string& to, const std::string& objective,
                     bool link = false) {
  const ConfigResult* f = find(at, from);
  const ConfigResult* t = find(at, to);
  if (!t) return "";
  std::string out = f && !f->memory.fits ? fmt::format("{} no longer fits ({}); {} {}", from, f->memory.why, to, objective_metric(*t, objective))
                    : !f || f->requests_completed == 0 ? fmt::format("{} {}", to, objective_metric(*t, objective))
                    : fmt::format("{} {} against {} {}", to, objective_metric(*t, objective), from, objective_metric(*f, objective));
  if (link && t->prefill_collective)
    out += fmt::format("; {}'s prefill all-reduce then runs at {} bus bandwidth{}", to, format_bandwidth(t->prefill_collective->busbw_Bps()),
                       t->prefill_collective->staged ? ", host-staged" : "");
  return out;
}

// Why a link kind's bandwidth changes nothing: on the routes it is on, another link is narrower.
std::string narrowest_note(const Scenario& s, const Inputs& in, const ScenarioResult& base, const std::string& kind) {
  Topology topo(in.platform, s.hardware, s.collectives.p2p_level, s.collectives.nccl_version);
  const LinkDesc* narrowest = nullptr;
  for (const auto& c : base.configs)
    for (const auto& group : c.layout)
      for (int a : group)
        for (int b : group) {
          if (a == b) continue;
          const GpuPath& p = topo.path(a, b, int(group.size()));
          const LinkDesc* path_narrowest = nullptr;
          bool crosses = false;
          for (const auto& leg : p.legs)
            for (const auto& l : leg.links) {
              const LinkDesc& d = topo.platform().links[l.link];
              crosses = crosses || link_kind_name(d.kind) == kind;
              if (!path_narrowest || d.bandwidth_Bps < path_narrowest->bandwidth_Bps) path_narrowest = &d;
            }
          if (crosses && path_narrowest && (!narrowest || path_narrowest->bandwidth_Bps < narrowest->bandwidth_Bps)) narrowest = path_narrowest;
        }
  if (!narrowest || link_kind_name(narrowest->kind) == kind) return "";
  return fmt::format(": on the routes that cross it, {} ({}, {}) is narrower", narrowest->id, link_kind_name(narrowest->kind),
                     format_bandwidth(narrowest->bandwidth_Bps));
}

double total_gpu_memory(const Inputs& in, const Scenario& s) {
  double m = 0;
  for (const auto& g : in.platform.gpus) m += g.spec->memory_B * s.scheduler.gpu_memory_utilization;
  return m;
}

std::optional<double> link_value(const Scenario& s, const Inputs& in, const std::string& kind, bool bandwidth) {
  if (auto it = s.hardware.links.find(kind); it != s.hardware.links.end()) {
    if (bandwidth && it->second.bandwidth_Bps) return it->second.bandwidth_Bps;
    if (!bandwidth && it->second.latency_s) return it->second.latency_s;
  }
  for (const auto& l : in.platform.links)
    if (link_kind_name(l.kind) == kind) return bandwidth ? l.bandwidth_Bps : l.latency_s;
  return std::nullopt;
}

// The scenario's own value of a parameter, or why it has none.
std::optional<double> base_value(const std::string& p, const Scenario& s, const Inputs& in, std::string* why) {
  const WorkloadSpec& w = s.workload;
  const bool open = w.arrivals != ArrivalKind::closed && w.arrivals != ArrivalKind::trace;
  if (p == "model.weight_bytes") return in.model.weight_bytes();
  if (p == "workload.prompt_tokens" || p == "workload.output_tokens") {
    const LengthSpec& l = p == "workload.prompt_tokens" ? w.prompt : w.output;
    if (w.arrivals != ArrivalKind::trace && l.dist == LengthDist::fixed) return l.value;
    *why = "the lengths are drawn from a distribution or a trace";
    return std::nullopt;
  }
  if (p == "workload.rate") {
    if (open) return w.rate_per_s;
    *why = "the arrivals are not a rate (closed batch or trace)";
    return std::nullopt;
  }
  if (p == "workload.batch") return w.batch;
  if (p == "engine.host_overhead") return s.engine.host_overhead_s;
  if (p == "collectives.fixed_latency" && s.collectives.fixed_latency_s) return *s.collectives.fixed_latency_s;
  if (p == "hardware.hbm_bandwidth" && s.hardware.hbm_bandwidth_Bps) return *s.hardware.hbm_bandwidth_Bps;
  if (p == "links.sys_path.bandwidth") {
    const auto now = sys_path_bandwidth(s, in);
    if (!now) *why = "the platform has no PCIe, host-bridge or socket links";
    return now;
  }
  if (p.rfind("links.", 0) == 0) {
    const std::string kind = p.substr(6, p.rfind('.') - 6);
    auto v = link_value(s, in, kind, p.ends_with(".bandwidth"));
    if (!v) *why = "the platform has no " + kind + " links";
    return v;
  }
  *why = "the scenario does not set it";
  return std::nullopt;
}

// The default range and snapping of a parameter around its base value.
Probe probe_for(const std::string& p, const std::string& unit, double base, const Scenario& s, const Inputs& in) {
  Probe pr{p, unit, base};
  const long context = in.model.max_position_embeddings;
  auto whole = [](double v) { return std::max(1.0, std::round(v)); };
  if (unit == "tokens" || unit == "sequences") {
    pr.snap = whole;
    pr.down = 1;
    pr.up = base * 16;  // run time grows with the tokens simulated
    if (context > 0 && p == "workload.prompt_tokens") pr.up = std::min(*pr.up, double(context) - s.workload.output.value);
    if (context > 0 && p == "workload.output_tokens") pr.up = std::min(*pr.up, double(context) - s.workload.prompt.value);
  } else if (p == "model.weight_bytes") {
    int pp = 1;
    for (const auto& c : s.configs) pp = std::max(pp, c.pp);
    const ModelCard model = in.model;
    pr.snap = [model, pp](double v) { return scaled_to_weight_bytes(model, v, pp).weight_bytes(); };
    pr.down = base / 8;
    pr.up = total_gpu_memory(in, s);
  } else if (unit == "s") {
    pr.down = 0;
    pr.up = std::max(base * 100, 1e-4);
  } else if (p == "workload.rate") {
    pr.down = base / 100, pr.up = base * 10;  // more requests cost run time: a tenfold rate at most
  } else {
    pr.down = base / 100, pr.up = base * 100;
  }
  if (pr.down && !(*pr.down < base)) pr.down.reset();
  if (pr.up && !(*pr.up > base)) pr.up.reset();
  return pr;
}

std::string unit_of(const std::string& p) {
  for (const auto& [name, unit] : sweepable_parameters())
    if (name == p) return unit;
  return "";
}

// The link kind that stands for a path class: what a user would make faster or slower.
std::string kind_of_class(PathClass c, const Inputs& in) {
  auto has = [&](LinkKind k) { return std::any_of(in.platform.links.begin(), in.platform.links.end(), [&](const auto& l) { return l.kind == k; }); };
  switch (c) {
    case PathClass::NVL: return has(LinkKind::nvswitch) ? "nvswitch" : "nvlink";
    case PathClass::PIX:
    case PathClass::PXB: return has(LinkKind::pcie_switch) ? "pcie_switch" : "pcie";
    case PathClass::PHB: return "host_bridge";
    case PathClass::SYS: return "upi";
    case PathClass::NET: return "nic";
  }
  return "";
}

// The inputs that decide the verdict: model size, lengths, rate, and the links the collectives cross.
std::vector<std::string> default_parameters(const Scenario& s, const Inputs& in, const ScenarioResult& base) {
  std::vector<std::string> names{"model.weight_bytes", "workload.prompt_tokens", "workload.output_tokens", "workload.rate"};
  std::set<PathClass> classes;
  for (const auto& c : base.configs)
    for (const auto* plan : {&c.prefill_collective, &c.decode_collective})
      if (c.memory.fits && *plan && c.tp > 1) classes.insert((*plan)->worst_class);
  for (PathClass c : classes) {
    const std::string kind = kind_of_class(c, in);
    for (const char* what : {".bandwidth", ".latency"}) names.push_back("links." + kind + what);
    if (c == PathClass::SYS) names.push_back("links.sys_path.bandwidth");
  }
  std::vector<std::string> out;
  std::string why;
  for (const auto& n : names)
    if (base_value(n, s, in, &why)) out.push_back(n);
  return out;
}

std::vector<Change> probe_numeric(const Scenario& s, const Inputs& in, const Probe& pr, const ScenarioResult& base, Budget& budget) {
  const std::string& winner = base.recommendation;
  std::vector<Change> out;
  for (const auto& [limit, direction] : {std::pair{pr.up, "above"}, std::pair{pr.down, "below"}}) {
    if (!limit) continue;
    Change c{pr.parameter, pr.unit, pr.base, std::nullopt, "", winner, "", direction, *limit};
    try {
      const SearchResult r = find_change({pr.base, *limit, pr.snap}, winner, [&](double v) {
        std::vector<ConfigResult> at = evaluate_at(s, in, pr.parameter, v, budget);
        return probe_winner(s, at, winner);
      });
      c.evaluations = r.evaluations;
      if (r.threshold) {
        c.threshold = r.threshold, c.to = r.to.empty() ? "none fits" : r.to;
        c.why = describe(evaluate_at(s, in, pr.parameter, *r.threshold, budget, winner), winner, r.to, objective_name(s.objective),
                         pr.parameter.rfind("links.", 0) == 0);
        ++c.evaluations;
      } else {
        const bool up = direction == std::string("above");
        c.why = fmt::format("no change {} {}", up ? "up to" : "down to", format_in_unit(*limit, pr.unit));
        const bool kind_bandwidth = pr.parameter.rfind("links.", 0) == 0 && pr.parameter.ends_with(".bandwidth") && pr.parameter != "links.sys_path.bandwidth";
        if (up && kind_bandwidth) c.why += narrowest_note(s, in, base, pr.parameter.substr(6, pr.parameter.rfind('.') - 6));
      }
    } catch (const Stop& stop) {
      c.why = "the search stopped: " + stop.why;
    }
    out.push_back(c);
  }
  return out;
}

std::vector<Change> probe_objectives(const Scenario& s, const ScenarioResult& base) {
  std::vector<Change> out;
  for (Objective o : {Objective::latency, Objective::ttft, Objective::tpot, Objective::throughput, Objective::slo}) {
    if (o == s.objective || (o == Objective::slo && !s.slo.ttft_p99_s && !s.slo.tpot_p99_s && !s.slo.e2e_p99_s)) continue;
    const std::string w = winner_of(base.configs, o);
    Change c{"objective", "", std::nullopt, std::nullopt, objective_name(o), base.recommendation, w == base.recommendation ? "" : w};
    const ConfigResult* t = find(base.configs, w);
    c.why = !t ? "no configuration fits"
               : c.to.empty() ? fmt::format("no change, the same winner ({})", objective_metric(*t, objective_name(o)))
                              : describe(base.configs, base.recommendation, w, objective_name(o));
    out.push_back(c);
  }
  return out;
}

std::vector<Change> probe_p2p(const Scenario& s, const Inputs& in, const std::string& winner, Budget& budget) {
  std::vector<Change> out;
  for (const auto& [level, label] : {std::pair{"OFF", "off (NCCL_P2P_DISABLE=1)"}, std::pair{"SYS", "at every level (NCCL_P2P_LEVEL=SYS)"}}) {
    if (s.collectives.p2p_level == level) continue;
    Scenario point = s;
    point.collectives.p2p_level = level;
    Change c{"collectives.p2p", "", std::nullopt, std::nullopt, label, winner};
    c.evaluations = 1;
    try {
      budget.check();
      const auto at = evaluate(point, in, winner);
      budget.spend(at);
      const std::string w = probe_winner(s, at, winner);
      if (w != winner) c.to = w, c.why = describe(at, winner, w, objective_name(s.objective));
      else if (const ConfigResult* t = find(at, w)) c.why = fmt::format("no change, the same winner ({})", objective_metric(*t, objective_name(s.objective)));
    } catch (const InputError& e) {
      c.why = std::string("not evaluated: ") + e.what();
    } catch (const Stop& stop) {
      c.why = "not evaluated: " + stop.why;
    }
    out.push_back(c);
  }
  return out;
}

// A user's probe: its base value, and its range checked against it.
Probe user_probe(const ProbeSpec& ps, const Scenario& s, const Inputs& in) {
  std::string why;
  const std::optional<double> base = base_value(ps.parameter, s, in, &why);
  if (!base) throw InputError(ps.where, fmt::format("cannot probe '{}': {}, so there is no value to start from", ps.parameter, why));
  const std::string unit = unit_of(ps.parameter);
  Probe pr = probe_for(ps.parameter, unit, *base, s, in);
  if (ps.up_to && !(*ps.up_to > *base))
    throw InputError(ps.where, fmt::format("'up_to' {} is not above the scenario's value of '{}', {}", format_in_unit(*ps.up_to, unit),
                                           ps.parameter, format_in_unit(*base, unit)));
  if (ps.down_to && !(*ps.down_to < *base))
    throw InputError(ps.where, fmt::format("'down_to' {} is not below the scenario's value of '{}', {}", format_in_unit(*ps.down_to, unit),
                                           ps.parameter, format_in_unit(*base, unit)));
  if (ps.up_to || ps.down_to) pr.up = ps.up_to, pr.down = ps.down_to;
  return pr;
}

// A search's probes re-run its best splits that fit and every split that does not fit yet (a
// smaller model or more memory may let one in); the others (saturated or far behind at the base)
// are left out, and the output says which.
constexpr std::size_t CONTENDERS = 4;

// The configurations a probe re-runs: all of them, or for a search with more than CONTENDERS
// that fit, the CONTENDERS best of its ranking that fit (the recommendation one of them) and every
// one that does not; `scope` says so. The base results are restricted alike.
std::pair<Scenario, ScenarioResult> contenders(const Scenario& s, const ScenarioResult& base, std::string& scope) {
  if (!base.search) return {s, base};
  std::vector<std::size_t> fit, rest;
  for (std::size_t i : base.search->ranking) (base.configs[i].memory.fits ? fit : rest).push_back(i);
  if (fit.size() <= CONTENDERS) return {s, base};
  // A fewest-GPUs search's contenders are its smallest splits (the objective's order among as many GPUs):
  // a change makes a smaller split meet the SLOs, or the winner miss them, not the largest splits win.
  const bool fewest = base.search->fewest_gpus_mode;
  if (fewest)
    std::stable_sort(fit.begin(), fit.end(), [&](std::size_t a, std::size_t b) { return gpus_of(base.configs[a]) < gpus_of(base.configs[b]); });
  std::vector<std::string> kept, dropped;
  std::set<std::string> keep;
  // The recommendation is always among them (a fewest-GPUs winner can rank behind the objective's best):
  // a probe that left it out would report the flip to another split at any change.
  const std::string& winner = base.recommendation;
  const bool winner_behind = std::none_of(fit.begin(), fit.begin() + CONTENDERS, [&](std::size_t i) { return base.configs[i].name == winner; });
  for (std::size_t k = 0; k < fit.size(); ++k) {
    const std::string& name = base.configs[fit[k]].name;
    const bool take = name == winner || (k < CONTENDERS - (winner_behind && !winner.empty() ? 1 : 0));
    (take ? kept : dropped).push_back(name);
  }
  keep.insert(kept.begin(), kept.end());
  for (std::size_t i : rest) keep.insert(base.configs[i].name);
  Scenario narrowed = s;
  narrowed.configs.clear();
  for (const auto& c : s.configs)
    if (keep.count(c.name)) narrowed.configs.push_back(c);
  ScenarioResult narrowed_base = base;
  narrowed_base.configs.clear();
  for (const auto& c : base.configs)
    if (keep.count(c.name)) narrowed_base.configs.push_back(c);
  scope = fmt::format("probes re-ran the {} {} that fit ({}){}; not the {} behind them ({})", kept.size(),
                      fewest ? "splits with the fewest GPUs" : "best splits", fmt::join(kept, ", "),
                      rest.empty() ? "" : fmt::format(" and the {} that do not fit", rest.size()), dropped.size(), fmt::join(dropped, ", "));
  return {narrowed, narrowed_base};
}

}  // namespace

void check_what_would_change(const Scenario& s, const Inputs& in) {
  if (!s.what_would_change.enabled) return;
  for (const auto& ps : s.what_would_change.probes)
    if (ps.parameter != "objective" && ps.parameter != "collectives.p2p") user_probe(ps, s, in);
}

std::vector<Change> what_would_change(const Scenario& scenario, const Inputs& in, const ScenarioResult& full_base, const RunOptions& opt,
                                      std::string& scope) {
  if (!scenario.what_would_change.enabled) return {};
  auto [s, base] = contenders(scenario, full_base, scope);
  s.sweep.reset();
  // Every user probe is checked before anything runs.
  std::vector<std::variant<Probe, std::string>> probes;
  if (s.what_would_change.probes.empty()) {
    probes.emplace_back(std::string("objective"));
    for (const auto& p : default_parameters(s, in, base)) {
      std::string why;
      probes.emplace_back(probe_for(p, unit_of(p), *base_value(p, s, in, &why), s, in));
    }
    probes.emplace_back(std::string("collectives.p2p"));
  } else {
    for (const auto& ps : s.what_would_change.probes) {
      if (ps.parameter == "objective" || ps.parameter == "collectives.p2p") probes.emplace_back(ps.parameter);
      else probes.emplace_back(user_probe(ps, s, in));
    }
  }
  std::vector<Change> out;
  if (base.recommendation.empty()) return out;
  Budget budget;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const auto* named = std::get_if<std::string>(&probes[i]);
    if (opt.progress)
      opt.progress(fmt::format("what would change: {} ({}/{})", named ? *named : std::get<Probe>(probes[i]).parameter, i + 1, probes.size()));
    std::vector<Change> c = !named                      ? probe_numeric(s, in, std::get<Probe>(probes[i]), base, budget)
                            : *named == "objective"     ? probe_objectives(scenario, full_base)
                                                        : probe_p2p(s, in, base.recommendation, budget);
    out.insert(out.end(), c.begin(), c.end());
  }
  return out;
}

std::string probe_winner(const Scenario& s, const std::vector<ConfigResult>& at, const std::string& incumbent) {
  const ConfigResult* fewest = s.search && s.search->fewest_gpus ? fewest_gpus_within_slo(at, s) : nullptr;
  if (fewest) return fewest->name;
  const std::string w = winner_of(at, s.objective);
  // A tie is no change: the first of equals would otherwise "win" (two splits both at 0% SLO attainment
  // and no goodput read as a change of winner).
  const ConfigResult *won = find(at, w), *kept = find(at, incumbent);
  return won && kept && w != incumbent && !(score(*won, s.objective) < score(*kept, s.objective)) ? incumbent : w;
}

}  // namespace tpsim
