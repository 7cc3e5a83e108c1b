// `tpsim SCENARIO [--json F] [--markdown F] [--csv F] [--quiet]`: compare configurations.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "cmd_common.hpp"
#include "config/scenario.hpp"
#include "engine/scenario_runner.hpp"
#include "report/verdict.hpp"
#include "config/model_card.hpp"
#include "config/platform_file.hpp"
#include "report/launch.hpp"
#include "report/search_report.hpp"
#include "report/svg_plot.hpp"
#include "report/trace_json.hpp"
#include "report/writers.hpp"

namespace tpsim {

namespace {

// --launch DIR, --plot DIR: a folder (created if missing, its parent must exist), never a file,
// nor standard output.
void check_output_folder(const std::string& flag, const std::string& dir) {
  if (dir == STANDARD_OUTPUT) throw InputError({dir}, flag + " writes files into a folder: give a folder name, not standard output");
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
    throw InputError({dir}, flag + " needs a folder to write into; this is a file");
  if (!std::filesystem::exists(dir, ec)) check_output_path(dir);  // its parent folder must exist
}

// The P2P level the serve scripts pin (the platform's, or the scenario's NCCL release's default) and
// the node of each GPU (a replica across nodes is not launched from one host).
std::pair<PinnedP2pLevel, std::map<int, int>> launch_platform(const Scenario& s) {
  const PlatformDesc platform = load_platform_file(s.platform_path);
  std::map<int, int> node_of_gpu;
  for (const auto& g : platform.gpus) node_of_gpu[g.index] = g.node;
  return {pinned_p2p_level(s, platform.p2p_level, platform.cpu_vendor), node_of_gpu};
}

}  // namespace

int run_scenario_command(int argc, char** argv) {
  CLI::App app{"tpsim: which split of the GPUs serves best — tensor-parallel groups, replicas, or both.\n"
               "Subcommands: tpsim collective ..., tpsim fit ..., tpsim topo import|show ..."};
  std::string scenario_path, json_path, md_path, csv_path, plot_dir, trace_path, launch_dir;
  std::vector<std::string> launch_configs;
  bool quiet = false, flows = false;
  app.add_option("scenario", scenario_path, "scenario YAML")->required();
  app.add_option("--json", json_path, "write the result as JSON (fields in design.md); - prints it in place of the table");
  app.add_option("--markdown", md_path, "write a Markdown report for a design review");
  app.add_option("--csv", csv_path, "write per-request records as CSV");
  app.add_option("--plot", plot_dir, "write the sweep's charts as SVG into this folder");
  app.add_option("--trace", trace_path, "write the timeline as Chrome/Perfetto trace JSON (GPU, link and request lanes)");
  app.add_option("--launch", launch_dir, "write the scripts that serve the recommendation on the box, and benchmark it, into this folder");
  app.add_option("--launch-config", launch_configs, "also write launch scripts for this configuration (repeatable)");
  app.add_flag("--quiet", quiet, "no progress on stderr");
  app.add_flag("--force-flows", flows, "run every collective as SimGrid flows (no closed-form fast path)");
  app.set_version_flag("--version", std::string("tpsim ") + TPSIM_VERSION);
  if (auto rc = parse_command_line(app, argc, argv)) return *rc;
  if (std::error_code ec; !std::filesystem::exists(scenario_path, ec))  // a mistyped subcommand lands here too
    throw InputError({scenario_path}, "no such scenario file (tpsim SCENARIO.yaml, or a subcommand: collective, fit, topo)");
  const Scenario scenario = load_scenario(scenario_path);
  const bool report_elsewhere = takes_standard_output({&json_path, &md_path, &csv_path, &trace_path});
  for (const std::string* out : {&json_path, &md_path, &csv_path, &trace_path})
    if (!out->empty() && *out != STANDARD_OUTPUT) check_output_path(*out);
  if (!launch_dir.empty()) check_output_folder("--launch", launch_dir);
  if (!plot_dir.empty()) check_output_folder("--plot", plot_dir);
  if (launch_dir.empty() && !launch_configs.empty()) throw InputError({"--launch-config"}, "goes with --launch DIR");
  RunOptions opt;
  opt.force_flows = flows;
  TraceLog trace;
  if (!trace_path.empty()) opt.trace = &trace;
  const bool show = !quiet && stderr_is_tty();
  if (show) opt.progress = [](const std::string& what) { std::cerr << "\r\033[K  simulating " << what << std::flush; };
  ScenarioResult result = run_scenario(scenario, opt);
  if (show) std::cerr << "\r\033[K" << std::flush;
  explain(result);
  // Render everything before writing anything, so a failure leaves no partial output.
  const std::string json = json_path.empty() ? "" : render_json(result, TPSIM_VERSION);
  const std::string md = md_path.empty() ? "" : render_markdown(result);
  const std::string csv = csv_path.empty() ? "" : render_requests_csv(result);
  const std::string timeline = trace_path.empty() ? "" : render_trace_json(trace);
  std::vector<std::pair<std::string, std::string>> launch;
  if (!launch_dir.empty()) {
    const auto [p2p, node_of_gpu] = launch_platform(scenario);
    launch = launch_files(scenario, load_model_card(scenario.model_path, scenario.dtype, scenario.kv_cache_dtype), result, launch_configs,
                          scenario_engine_name(scenario), p2p, node_of_gpu);
  }
  if (!json_path.empty()) write_output(json_path, json);
  if (!md_path.empty()) write_output(md_path, md);
  if (!csv_path.empty()) write_output(csv_path, csv);
  if (!trace_path.empty()) write_output(trace_path, timeline);
  if (!launch.empty()) std::filesystem::create_directories(launch_dir);
  for (const auto& [file, text] : launch) write_file_atomically((std::filesystem::path(launch_dir) / file).string(), text);
  if (trace.truncated)
    std::cerr << "tpsim: note: the trace stops at " << trace.limit << " events; fewer requests or tokens give a complete one\n";
  if (!plot_dir.empty()) {
    std::filesystem::create_directories(plot_dir);
    for (const auto& [file, svg] : sweep_charts(result)) write_file_atomically((std::filesystem::path(plot_dir) / file).string(), svg);
    for (const auto& [file, svg] : search_charts(result)) write_file_atomically((std::filesystem::path(plot_dir) / file).string(), svg);
  }
  if (!report_elsewhere) std::cout << render_table(result);
  return 0;
}

}  // namespace tpsim
