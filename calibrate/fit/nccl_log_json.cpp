#include "nccl_log_json.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/error.hpp"

namespace tpsim::fit {
namespace {

using nlohmann::json;

// The 1-based line of byte `at` of `text` (1 for npos).
int line_at(const std::string& text, std::size_t at) {
  if (at == std::string::npos) return 1;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(at, text.size())), '\n'));
}

// The line of the n-th (0-based) `"key"` in `text`, 1 when there is none: where a rendered line's
// error is reported.
int line_of(const std::string& text, const std::string& key, std::size_t n = 0) {
  const std::string quoted = "\"" + key + "\"";
  std::size_t at = text.find(quoted);
  for (std::size_t i = 0; i < n && at != std::string::npos; ++i) at = text.find(quoted, at + quoted.size());
  return line_at(text, at);
}

// A JSON value as nccl-tests' text prints it: numbers as written, strings trimmed, null as N/A.
std::string cell(const json& v) {
  if (v.is_null()) return "N/A";
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    const auto first = s.find_first_not_of(' '), last = s.find_last_not_of(' ');
    return first == std::string::npos ? "N/A" : s.substr(first, last - first + 1);
  }
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number()) return fmt::format("{}", v.get<double>());
  return v.dump();
}

// One direction of a result: time (or cpu_time under -C), alg_bw, bus_bw, nwrong.
std::string timing(const json& result, const char* direction, const char* time_key) {
  if (!result.contains(direction) || result[direction].is_null()) return "N/A N/A N/A N/A";
  const json& d = result[direction];
  const auto get = [&](const char* key) { return d.contains(key) ? cell(d[key]) : std::string("N/A"); };
  return fmt::format("{} {} {} {}", get(time_key), get("alg_bw"), get("bus_bw"), get("nwrong"));
}

struct Renderer {
  RenderedReport out;
  void line(const std::string& text, int json_line) {
    out.text += text + "\n";
    out.json_line.push_back(json_line);
  }
};

}  // namespace

std::optional<RenderedReport> render_json_report(const std::string& text, const std::string& file) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{') return std::nullopt;
  json report;
  try {
    report = json::parse(text);
  } catch (const json::parse_error& e) {
    const std::size_t at = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    const auto line_start = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
    const int col = static_cast<int>(at - (line_start == std::string::npos ? 0 : line_start + 1)) + 1;
    throw InputError({file, line_at(text, at), col}, "malformed JSON (an nccl-tests -J report?): " + std::string(e.what()));
  }
  if (!report.is_object() || !report.contains("results") || !report["results"].is_array())
    throw InputError({file, 1, 1}, "a JSON file without \"results\": tpsim reads nccl-tests' text output or its -J report");
  Renderer r;
  r.line(fmt::format("# nccl-tests JSON report, version {}: read as its text output", report.value("version", 0)), 1);
  if (report.contains("args") && report["args"].is_array()) {
    std::string command;
    for (const json& a : report["args"]) command += (command.empty() ? "" : " ") + cell(a);
    r.line(command, line_of(text, "args"));
  }
  if (report.contains("env") && report["env"].is_array())
    for (const json& e : report["env"])
      if (e.is_string() && e.get<std::string>().rfind("NCCL_", 0) == 0) {
        const std::string setting = e.get<std::string>();
        r.line(setting, line_at(text, text.find("\"" + setting)));
      }
  if (report.contains("nccl_version") && report["nccl_version"].is_number_integer())
    r.line(fmt::format("# nccl-tests version json-report nccl-headers={0} nccl-library={0}", report["nccl_version"].get<long long>()),
           line_of(text, "nccl_version"));
  if (report.contains("config") && report["config"].is_object()) {
    const json& c = report["config"];
    r.line(fmt::format("# nThread {} nGpus {}", c.contains("nthreads") ? cell(c["nthreads"]) : "1", c.contains("ngpus") ? cell(c["ngpus"]) : "1"),
           line_of(text, "config"));
    if (c.contains("devices") && c["devices"].is_array()) {
      std::size_t i = 0;
      for (const json& d : c["devices"]) {
        const auto get = [&](const char* key) { return d.contains(key) ? cell(d[key]) : std::string("?"); };
        r.line(fmt::format("#  Rank {} Group {} Pid {} on {} device {} [{}] {}", get("rank"), get("group"), get("pid"), get("hostname"),
                           get("device"), get("device_hex"), get("device_info")),
               line_of(text, "device_info", i++));
      }
    }
  }
  const json& results = report["results"];
  const bool cpu_time = !results.empty() && results[0].contains("out_of_place") && results[0]["out_of_place"].is_object() &&
                        results[0]["out_of_place"].contains("cpu_time");
  const char* time_key = cpu_time ? "cpu_time" : "time";
  const char* time_name = cpu_time ? "cputime" : "time";
  r.line(fmt::format("#  size count type redop root {0} algbw busbw #wrong {0} algbw busbw #wrong", time_name), line_of(text, "results"));
  for (std::size_t i = 0; i < results.size(); ++i) {
    const json& x = results[i];
    const auto get = [&](const char* key) { return x.contains(key) ? cell(x[key]) : std::string("N/A"); };
    r.line(fmt::format("{} {} {} {} {} {} {}", get("size"), get("count"), get("type"), get("redop"), get("root"),
                       timing(x, "out_of_place", time_key), timing(x, "in_place", time_key)),
           line_of(text, "size", i));
  }
  if (report.contains("average_bus_bandwidth") && report["average_bus_bandwidth"].is_object())
    r.line(fmt::format("# Avg bus bandwidth    : {}", cell(report["average_bus_bandwidth"].value("bandwidth", json()))),
           line_of(text, "average_bus_bandwidth"));
  return std::move(r.out);
}

}  // namespace tpsim::fit
