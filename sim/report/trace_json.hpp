// Chrome/Perfetto trace JSON of a simulated timeline (open in ui.perfetto.dev or chrome://tracing).
#pragma once
#include <string>

#include "model/trace.hpp"

namespace tpsim {

std::string render_trace_json(const TraceLog& trace);

}  // namespace tpsim
