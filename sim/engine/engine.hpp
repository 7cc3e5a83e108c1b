// The SimGrid engine: the only place that includes <simgrid/s4u.hpp>.
// One Engine per process (a SimGrid rule), so every configuration (and sweep point) of a
// scenario runs in the same engine, one after the other in simulated time; results are
// relative to each run's start. Per run: an arrival actor routes requests to replicas; one
// actor per replica drives its scheduler and, for each step, either sleeps for the closed-form
// step time (when no link of the replica is shared with another replica) or executes the step
// segment by segment, with every collective's bandwidth part as SimGrid flows along the
// platform routes, so replicas that share a link slow each other down.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "model/scheduler.hpp"
#include "model/step_cost.hpp"
#include "model/trace.hpp"

namespace tpsim {

struct ReplicaSpec {
  std::vector<int> gpus;
  long kv_blocks = 0;
  // The replica's own tp (a mixed split's replicas differ: TP=4 + 4xTP=1) and the KV blocks a
  // sequence takes on it; unset, the run's `parallel` and `kv_shape`.
  std::optional<Parallelism> parallel;
  std::optional<KvBlockShape> kv_shape;
};

struct RunSpec {
  const ModelCard* model = nullptr;
  const CollectiveModel* collectives = nullptr;
  GpuModel gpu;
  SchedulerSpec scheduler;
  std::vector<ReplicaSpec> replicas;
  Parallelism parallel;       // tp, pp (the replica's GPUs, stage by stage), ep, sequence parallelism
  KvBlockShape kv_shape;      // how a sequence's tokens take KV blocks (sliding-window layers)
  const Parallelism& parallel_of(std::size_t r) const { return replicas[r].parallel ? *replicas[r].parallel : parallel; }
  const KvBlockShape& kv_shape_of(std::size_t r) const { return replicas[r].kv_shape ? *replicas[r].kv_shape : kv_shape; }
  std::vector<Request> requests;
  bool force_flows = false;  // run every collective as flows, even where the closed form applies
  bool fast_forward = true;  // run unobservable closed-form steps without a SimGrid event each (engine.cpp)
  TraceLog* trace = nullptr;  // record the timeline (op by op) when set
  std::string trace_process;  // the configuration's name in the trace
};

struct RunResult {
  std::vector<RequestRecord> records;  // completed requests, in completion order
  long dropped = 0;                    // requests that can never fit in a replica's KV cache
  long preemptions = 0;
  double kv_peak_usage = 0;            // highest fraction of KV blocks in use on any replica
  double makespan_s = 0;               // first arrival to last completion
  long steps = 0;
  long events = 0;                     // SimGrid waits the run's actors made (sleeps, flows): its cost
  long flow_collectives = 0;           // collectives run as SimGrid flows
  bool shared_links = false;           // some replicas share a link
};

// Loads the platform into the process's engine (once) and applies link overrides.
void engine_load_platform(const std::string& platform_file, const Topology& topology);
// Runs one configuration to completion.
RunResult engine_run(const RunSpec& spec);

}  // namespace tpsim
