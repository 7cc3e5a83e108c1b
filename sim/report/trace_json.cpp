#include "trace_json.hpp"

#include <map>
#include <nlohmann/json.hpp>

namespace tpsim {

std::string render_trace_json(const TraceLog& trace) {
  using nlohmann::json;
  json events = json::array();
  std::map<std::string, int> pids;
  std::map<std::pair<int, std::string>, int> tids;
  for (const auto& e : trace.events) {
    auto [pit, new_process] = pids.emplace(e.process, int(pids.size()) + 1);
    const int pid = pit->second;
    if (new_process) events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", e.process}}}});
    auto [tit, new_lane] = tids.emplace(std::pair{pid, e.lane}, int(tids.size()) + 1);
    if (new_lane) events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tit->second}, {"args", {{"name", e.lane}}}});
    // Chrome trace times are microseconds.
    events.push_back({{"ph", "X"}, {"name", e.name}, {"pid", pid}, {"tid", tit->second}, {"ts", e.start_s * 1e6}, {"dur", e.duration_s * 1e6}});
  }
  json doc = {{"traceEvents", events}, {"displayTimeUnit", "ms"},
              {"otherData", {{"generator", "tpsim"}, {"truncated", trace.truncated}, {"event_limit", trace.limit}}}};
  return doc.dump() + "\n";
}

}  // namespace tpsim
