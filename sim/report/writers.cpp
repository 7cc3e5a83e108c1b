#include "writers.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "answer_report.hpp"
#include "exercises.hpp"
#include "util/error.hpp"
#include "search_report.hpp"
#include "verdict.hpp"

namespace tpsim {
namespace {

using nlohmann::json;

std::string layout_text(const std::vector<std::vector<int>>& layout) {
  std::string s;
  for (const auto& rep : layout) s += fmt::format("[{}]", fmt::join(rep, ","));
  return s;
}

json ms(const Percentiles& p) { return {{"p50", p.p50 * 1e3}, {"p90", p.p90 * 1e3}, {"p99", p.p99 * 1e3}, {"mean", p.mean * 1e3}}; }

json breakdown_json(const Breakdown& b) {
  return {{"weights", b.weights * 1e3}, {"compute", b.compute * 1e3}, {"attention", b.attention * 1e3},
          {"collectives", b.collectives * 1e3}, {"all_to_all", b.all_to_all * 1e3}, {"launch", b.launch * 1e3}, {"host", b.host * 1e3}};
}

json collective_json(const CollectivePlan& c) {
  return {{"op", collective_op_name(c.op)}, {"size_B", c.size_B}, {"ranks", c.nranks}, {"algorithm", algorithm_name(c.algorithm)},
          {"protocol", protocol_name(c.protocol)}, {"path_class", path_class_name(c.worst_class)}, {"host_staged", c.staged},
          {"calibrated", c.calibrated}, {"latency_us", c.latency_s * 1e6}, {"bus_bytes_B", c.bus_bytes},
          {"bus_bandwidth_GBps", c.bus_bw_Bps / 1e9}, {"time_us", c.time_s() * 1e6},
          {"algbw_GBps", c.algbw_Bps() / 1e9}, {"busbw_GBps", c.busbw_Bps() / 1e9}};
}

// An xPyD configuration's pools and transfers: `disaggregation` and `kv_transfer_ms` (design.md).
void add_disaggregation(json& j, const ConfigResult& c) {
  const DisaggregationResult& d = *c.disaggregation;
  auto memory = [](const MemoryFit& m) {
    return json{{"weights", m.weights_B / 1e9}, {"activations", m.activations_B / 1e9}, {"capacity", m.capacity_B / 1e9}, {"kv_blocks", m.kv_blocks}};
  };
  j["disaggregation"] = {{"prefill", d.prefill}, {"decode", d.decode}, {"prefill_tp", d.prefill_tp}, {"decode_tp", d.decode_tp},
                         {"transfer", "whole request after its prefill"}, {"kv_bytes_per_token", d.kv_bytes_per_token},
                         {"reference_kv_B", d.reference_kv_B}, {"reference_transfer_ms", d.reference_transfer_s * 1e3},
                         {"path_class", path_class_name(d.path_class)}, {"host_staged", d.staged},
                         {"memory_GB", {{"prefill", memory(d.prefill_memory)}, {"decode", memory(d.decode_memory)}}}};
  if (c.requests_completed == 0) return;
  j["kv_transfer_ms"] = ms(d.kv_transfer_s);
  j["kv_wait_ms"] = ms(d.kv_wait_s);
}

json config_json(const ConfigResult& c) {
  json j = {{"name", c.name}, {"layout", c.layout}, {"tp", c.tp}, {"pp", c.pp}, {"ep", c.ep}, {"attention_dp", c.attention_dp},
            {"gpu_model", c.gpu_model}, {"fits", c.memory.fits},
            {"decode_step_ms", c.decode_step.total() * 1e3}, {"prefill_ms", c.prefill.total() * 1e3},
            {"decode_batch", c.decode_batch}, {"prompt_tokens", c.prompt_tokens},
            {"breakdown_ms", breakdown_json(c.decode_step)}, {"prefill_breakdown_ms", breakdown_json(c.prefill)},
            {"collectives_per_step", c.collectives_per_step},
            {"memory_GB", {{"weights", c.memory.weights_B / 1e9}, {"activations", c.memory.activations_B / 1e9},
                           {"kv_needed", c.memory.kv_B / 1e9}, {"capacity", c.memory.capacity_B / 1e9}}},
            {"kv_blocks", c.memory.kv_blocks}, {"notes", c.notes}};
  if (!c.memory.fits) j["not_fitting_reason"] = c.memory.why;
  if (c.decode_collective) j["decode_all_reduce"] = collective_json(*c.decode_collective);
  if (c.prefill_collective) j["prefill_all_reduce"] = collective_json(*c.prefill_collective);
  if (c.decode_all_to_all) j["decode_all_to_all"] = collective_json(*c.decode_all_to_all);
  if (c.moe_imbalance) j["moe_imbalance"] = *c.moe_imbalance;
  if (c.requests_completed > 0) {
    j["ttft_ms"] = ms(c.ttft_s);
    j["tpot_ms"] = ms(c.tpot_s);
    j["e2e_ms"] = ms(c.e2e_s);
    j["queue_ms"] = ms(c.queue_s);
    j["max_itl_ms"] = ms(c.itl_max_s);
    j["throughput_tok_s"] = c.throughput_tok_s;
    j["throughput_tok_s_per_gpu"] = c.throughput_tok_s_per_gpu;
    j["throughput_req_s"] = c.throughput_req_s;
    j["goodput_req_s"] = c.goodput_req_s;
    j["slo_attainment"] = c.slo_attainment;
    j["kv_peak_utilisation"] = c.kv_peak_usage;
    j["mean_requests_in_system"] = c.mean_in_system;
    j["offered_rate_req_s"] = c.offered_rate_req_s;
    j["saturated"] = c.saturated;
    j["preemptions"] = c.preemptions;
    j["shared_links"] = c.shared_links;
  }
  if (c.disaggregation) add_disaggregation(j, c);
  j["requests_completed"] = c.requests_completed;
  j["requests_dropped"] = c.requests_dropped;
  add_config_intervals(j, c);
  return j;
}

// Eight significant digits: far finer than the model's accuracy, and coarse enough that runs of
// the same configuration at different simulated start times (one engine per process) print the
// same bytes despite floating-point noise in the last bits (what-would-change evaluations move
// the clock of a second run in one process far enough to show in the ninth digit; the eighth holds).
void round_numbers(json& j) {
  if (j.is_number_float()) {
    j = std::stod(fmt::format("{:.8g}", j.get<double>()));
  } else if (j.is_structured()) {
    for (auto& child : j) round_numbers(child);
  }
}

json configs_json(const std::vector<ConfigResult>& v) {
  json a = json::array();
  for (const auto& c : v) a.push_back(config_json(c));
  return a;
}

// "8", or "1/4" (prefill/decode TP) for a disaggregated configuration.
std::string tp_text(const ConfigResult& c) {
  return c.disaggregation ? fmt::format("{}/{}", c.disaggregation->prefill_tp, c.disaggregation->decode_tp) : std::to_string(c.tp);
}

// Where a sweep point's winner is only the best of the bad: saturated, or (with SLOs) past the highest
// value at which it meets them.
std::string sweep_winner_state(const ScenarioResult& r, const SweepPoint& p) {
  const auto c = std::find_if(p.configs.begin(), p.configs.end(), [&](const ConfigResult& x) { return x.name == p.winner; });
  if (c == p.configs.end()) return "";
  const auto meets = [&](const std::string& name) {  // meets the SLOs at this value (its highest within them is not below it)
    const auto h = std::find_if(r.highest_within_slo.begin(), r.highest_within_slo.end(), [&](const auto& x) { return x.first == name; });
    return h == r.highest_within_slo.end() || (h->second && *h->second >= p.value);
  };
  if (c->saturated) {
    const bool any = std::any_of(p.configs.begin(), p.configs.end(), [](const ConfigResult& x) { return x.memory.fits && !x.saturated; });
    return any ? " (saturated)" : " (saturated: no split keeps up here)";
  }
  if (meets(p.winner)) return "";
  const bool any = std::any_of(p.configs.begin(), p.configs.end(), [&](const ConfigResult& x) { return x.memory.fits && meets(x.name); });
  return any ? " (misses the SLOs)" : " (misses the SLOs: no split meets them here)";
}

}  // namespace

std::string render_table(const ScenarioResult& r) {
  std::string out = fmt::format("{} — {} on {}\n", r.scenario, r.model_name, r.platform_file) + table_grounding(r);
  std::size_t w = 13;
  for (const auto& c : r.configs) w = std::max(w, c.name.size());
  // A column for the KV transfer when some configuration is disaggregated (TP then reads prefill/decode).
  const bool pd = std::any_of(r.configs.begin(), r.configs.end(), [](const ConfigResult& c) { return c.disaggregation.has_value(); });
  out += fmt::format("{:<{}} {:>3} {:>10} {:>9} {:>10} {:>10} {:>10} {:>9}{}\n", "configuration", w, "TP", "TTFT p50", "TPOT p50",
                     "e2e p50", "tok/s/GPU", "decode", "prefill", pd ? fmt::format(" {:>12}", "KV transfer") : "");
  out += fmt::format("{:<{}} {:>3} {:>10} {:>9} {:>10} {:>10} {:>10} {:>9}{}\n", "", w, "", "(ms)", "(ms)", "(ms)", "(output)",
                     "step (ms)", "(ms)", pd ? fmt::format(" {:>12}", "p50 (ms)") : "");
  for (const auto& c : r.configs) {
    if (!c.memory.fits) {
      out += fmt::format("{:<{}} {:>3} does not fit: {}\n", c.name, w, tp_text(c), c.memory.why);
      continue;
    }
    const std::string kv = !pd ? "" : c.disaggregation ? fmt::format(" {:>12.2f}", c.disaggregation->kv_transfer_s.p50 * 1e3) : fmt::format(" {:>12}", "-");
    out += fmt::format("{:<{}} {:>3} {:>10.1f} {:>9.2f} {:>10.1f} {:>10.1f} {:>10.2f} {:>9.1f}{}{}\n", c.name, w, tp_text(c), c.ttft_s.p50 * 1e3,
                       c.tpot_s.p50 * 1e3, c.e2e_s.p50 * 1e3, c.throughput_tok_s_per_gpu, c.decode_step.total() * 1e3,
                       c.prefill.total() * 1e3, kv, c.saturated ? "  saturated" : "");
  }
  out += table_intervals(r);
  // The all-to-all column (MoE dispatch and combine) only where some configuration pays one.
  const bool a2a = std::any_of(r.configs.begin(), r.configs.end(), [](const ConfigResult& c) { return c.ep > 1; });
  out += fmt::format("\n{:<{}} {:<7} {:>8} {:>9} {:>9} {:>11}{} {:>7}   (ms, one replica alone)\n", "breakdown", w, "", "weights",
                     "compute", "attention", "collectives", a2a ? fmt::format(" {:>10}", "all-to-all") : "", "launch");
  for (const auto& c : r.configs) {
    for (const auto& [what, b] : {std::pair{"decode", c.decode_step}, std::pair{"prefill", c.prefill}})
      out += fmt::format("{:<{}} {:<7} {:>8.3f} {:>9.3f} {:>9.3f} {:>11.3f}{} {:>7.3f}\n", c.name, w, what, b.weights * 1e3,
                         b.compute * 1e3, b.attention * 1e3, b.collectives * 1e3, a2a ? fmt::format(" {:>10.3f}", b.all_to_all * 1e3) : "",
                         b.launch * 1e3);
  }
  if (r.sweep_parameter) {
    out += fmt::format("\nsweep of {} ({}):\n", *r.sweep_parameter, r.sweep_unit);
    for (const auto& p : r.sweep_points) out += fmt::format("  {:>12.6g}  winner {}{}\n", p.value, p.winner.empty() ? "none" : p.winner, sweep_winner_state(r, p));
    for (const auto& x : r.crossovers) out += fmt::format("  crossover at {:.6g} {}: {} -> {}\n", x.value, r.sweep_unit, x.from, x.to);
    for (const auto& [name, v] : r.highest_within_slo)
      out += fmt::format("  {}: highest value within the SLOs: {}\n", name, v ? fmt::format("{:.6g} {}", *v, r.sweep_unit) : "none swept");
  }
  out += render_search_table(r);
  if (!r.calibration_use.empty()) out += "\ncollective calibration:\n";
  for (const auto& line : r.calibration_use) out += "  " + line + "\n";
  out += fmt::format("\nverdict: {}\n  {}\n", r.recommendation.empty() ? "none" : r.recommendation, r.reason);
  return out + table_what_would_change(r);
}

std::string render_json(const ScenarioResult& r, const std::string& version) {
  json j = {{"scenario", r.scenario}, {"tpsim_version", version}, {"seed", r.seed}, {"model", r.model_name},
            {"platform", r.platform_file}, {"objective", r.objective}, {"units", "times in ms, bandwidth in GB/s (1e9 B/s), sizes in B"},
            {"configs", configs_json(r.configs)},
            {"recommendation", {{"config", r.recommendation}, {"reason", r.reason}, {"derivation", r.derivation}}},
            {"calibration_use", r.calibration_use}};
  add_answer_json(j, r);
  if (r.sweep_parameter) {
    json pts = json::array();
    for (const auto& p : r.sweep_points) pts.push_back({{"value", p.value}, {"configs", configs_json(p.configs)}, {"winner", p.winner}});
    json xs = json::array();
    for (const auto& x : r.crossovers) xs.push_back({{"value", x.value}, {"from", x.from}, {"to", x.to}});
    j["sweep"] = {{"parameter", *r.sweep_parameter}, {"unit", r.sweep_unit}, {"points", pts}, {"crossovers", xs}};
    if (!r.highest_within_slo.empty()) {
      json best = json::object();
      for (const auto& [name, v] : r.highest_within_slo) best[name] = v ? json(*v) : json(nullptr);
      j["sweep"]["highest_within_slo"] = best;
    }
  }
  add_search_json(j, r);
  round_numbers(j);
  return j.dump(2) + "\n";
}

std::string render_collective_json(const CollectiveSweep& s, const std::string& version) {
  auto or_null = [](const std::string& v) { return v.empty() ? json(nullptr) : json(v); };
  json rows = json::array();
  for (const auto& r : s.rows) {
    const CollectivePlan& c = *r.plan;
    json row = {{"size_B", r.size_B},
                {"time_us", c.time_s() * 1e6},
                {"algbw_GBps", c.algbw_Bps() / 1e9},
                {"busbw_GBps", c.busbw_Bps() / 1e9},
                {"algorithm", algorithm_name(c.algorithm)},
                {"protocol", protocol_name(c.protocol)},
                {"engine_kernel", or_null(c.engine_kernel)},
                {"path_class", path_class_name(c.worst_class)},
                {"host_staged", c.staged},
                {"calibrated", c.calibrated},
                {"latency_us", c.latency_s * 1e6},
                {"tree_fill_us", c.tree_fill_s * 1e6},  // of latency_us: a Simple tree's chunks stored and forwarded
                {"ll_sync_us", c.ll_sync_s * 1e6},      // of latency_us: LL's step synchronisation beyond its data time
                {"nvls_pipeline_us", c.nvls_pipeline_s * 1e6},  // of latency_us: NVLS's chunk pipeline (NVLS-tree: its network steps' fill)
                {"bus_bandwidth_GBps", c.bus_bw_Bps / 1e9}};
    if (r.measured_s) {
      row["measured_time_us"] = *r.measured_s * 1e6;
      row["error"] = c.time_s() / *r.measured_s - 1;
    }
    rows.push_back(row);
  }
  json j = {{"tpsim_version", version},
            {"op", s.op},
            {"platform", s.platform},
            {"gpus", s.gpus},
            {"nranks", s.nranks},
            {"p2p", s.p2p},
            {"calibration", or_null(s.calibration)},
            {"compared_with", or_null(s.compared_with)},
            {"gpus_per_thread", s.gpus_per_thread},
            {"nccl_version", or_null(s.nccl_version)},
            {"engine", s.engine},
            {"group_launch", s.gpus_per_thread > 1 && nccl_group_launch(s.nccl_version)},
            {"calibration_use", s.calibration_use},
            {"log_settings", s.log_settings},
            {"notes", s.notes},
            {"units", {{"size_B", "bytes"},
                       {"time_us", "microseconds, one collective"},
                       {"algbw_GBps", "algorithm bandwidth, size / time, GB/s = 1e9 B/s"},
                       {"busbw_GBps", "bus bandwidth, algbw x bus factor (nccl-tests), GB/s"},
                       {"bus_bandwidth_GBps", "the model's bus bandwidth for the chosen protocol, GB/s"},
                       {"error", "simulated / measured - 1"}}},
            {"rows", rows}};
  round_numbers(j);
  return j.dump(2) + "\n";
}

std::string render_markdown(const ScenarioResult& r) {
  std::string md = fmt::format("# {}\n\nModel **{}** on `{}`; objective: **{}**.\n\n", r.scenario, r.model_name, r.platform_file, r.objective) +
                   markdown_grounding(r);
  const bool pd = std::any_of(r.configs.begin(), r.configs.end(), [](const ConfigResult& c) { return c.disaggregation.has_value(); });
  md += "| configuration | layout | TP | fits | TTFT p50 (ms) | TPOT p50 (ms) | e2e p50 (ms) | output tok/s per GPU | decode step (ms) | prefill (ms) |";
  md += pd ? " KV transfer p50 (ms) |\n|---|---|---|---|---|---|---|---|---|---|---|\n" : "\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : r.configs) {
    const std::string kv = !pd ? "" : c.disaggregation ? fmt::format(" {:.2f} |", c.disaggregation->kv_transfer_s.p50 * 1e3) : " - |";
    md += fmt::format("| {} | {} | {} | {} | {:.1f} | {:.2f} | {:.1f} | {:.1f} | {:.2f} | {:.1f} |{}\n", c.name, layout_text(c.layout), tp_text(c),
                      c.memory.fits ? "yes" : "no", c.ttft_s.p50 * 1e3, c.tpot_s.p50 * 1e3, c.e2e_s.p50 * 1e3, c.throughput_tok_s_per_gpu,
                      c.decode_step.total() * 1e3, c.prefill.total() * 1e3, kv);
  }
  md += fmt::format("\n## Verdict: {}\n\n{}\n\n## How the numbers come about\n\n", r.recommendation.empty() ? "none" : r.recommendation, r.reason);
  for (const auto& line : r.derivation) md += "- " + line + "\n";
  md += "\nCollective time = latency + bus bytes / bus bandwidth, bus bytes = S · 2(N−1)/N for an all-reduce "
        "(nccl-tests' bus bandwidth definition). Op time = max(flops / (peak · efficiency), bytes / HBM bandwidth).\n";
  if (r.sweep_parameter) {
    md += fmt::format("\n## Sweep of `{}` ({})\n\n| value | winner |\n|---|---|\n", *r.sweep_parameter, r.sweep_unit);
    for (const auto& p : r.sweep_points) md += fmt::format("| {:.6g} | {} |\n", p.value, p.winner);
    for (const auto& x : r.crossovers) md += fmt::format("\nThe winner changes from {} to {} at {:.6g} {}.\n", x.from, x.to, x.value, r.sweep_unit);
    for (const auto& [name, v] : r.highest_within_slo)
      md += fmt::format("\n- {} meets the SLOs up to {}.", name, v ? fmt::format("{:.6g} {}", *v, r.sweep_unit) : "none of the swept values");
    md += "\n";
  }
  md += render_search_markdown(r);
  return md + markdown_what_would_change(r) + markdown_exercises(r);
}

std::string render_requests_csv(const ScenarioResult& r) {
  std::string csv = "config,request,replica,arrival_s,scheduled_s,first_token_s,finish_s,prompt_tokens,output_tokens,preemptions\n";
  for (const auto& c : r.configs)
    for (const auto& q : c.records)
      csv += fmt::format("{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{},{},{}\n", c.name, q.id, q.replica, q.arrival_s, q.scheduled_s,
                         q.first_token_s, q.finish_s, q.prompt_tokens, q.output_tokens, q.preemptions);
  return csv;
}

void check_output_path(const std::string& path) {
  if (path == STANDARD_OUTPUT)
    throw InputError({path}, "standard output carries this command's report: give a file name for this output");
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw InputError({path}, fmt::format("cannot write here: no folder '{}'", dir.string()));
  if (std::filesystem::is_directory(path, ec)) throw InputError({path}, "cannot write here: it is a folder");
}

void write_file_atomically(const std::string& path, const std::string& text) {
  check_output_path(path);
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    // /dev/null, a pipe: written in place (a rename would replace the device with a file).
    std::ofstream out(path, std::ios::binary);
    if (!(out << text) || !out.flush()) throw InputError({path}, "cannot write here");
    return;
  }
  const std::string tmp = path + ".tmp-tpsim";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw InputError({path}, "cannot write here (permissions?)");
    out << text;
    if (!out.flush()) throw InputError({path}, "cannot write here (disk full?)");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw InputError({path}, "cannot write here: " + ec.message());
  }
}

bool takes_standard_output(const std::vector<const std::string*>& paths) {
  const auto n = std::count_if(paths.begin(), paths.end(), [](const std::string* p) { return *p == STANDARD_OUTPUT; });
  if (n > 1) throw InputError({STANDARD_OUTPUT}, "only one output can go to standard output");
  return n == 1;
}

void write_output(const std::string& path, const std::string& text) {
  if (path == STANDARD_OUTPUT) std::cout << text << std::flush;
  else write_file_atomically(path, text);
}

}  // namespace tpsim
