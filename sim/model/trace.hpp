// A simulated timeline, recorded by the engine when asked and rendered by the report layer as
// Chrome/Perfetto trace JSON: one lane per GPU (its GEMMs, attention, collectives), one per link
// (the flows crossing it), one span per request. Bounded: recording stops at `limit` events and
// the trace says so.
#pragma once
#include <string>
#include <vector>

namespace tpsim {

struct TraceEvent {
  std::string process;   // configuration
  std::string lane;      // "GPU 0", "link upi", "requests"
  std::string name;
  double start_s = 0, duration_s = 0;
};

struct TraceLog {
  std::size_t limit = 200000;
  bool truncated = false;
  std::vector<TraceEvent> events;
  void add(TraceEvent e) {
    if (events.size() >= limit) {
      truncated = true;
      return;
    }
    events.push_back(std::move(e));
  }
};

}  // namespace tpsim
