#include "engine.hpp"
#include "step_env.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <tuple>
#include <memory>
#include <set>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u.hpp>

#include "model/step_timer.hpp"

namespace sg4 = simgrid::s4u;

namespace tpsim {
namespace {

sg4::Engine* the_engine = nullptr;
std::string loaded_platform;

sg4::Engine& engine() {
  if (!the_engine) {
    static int argc = 4;
    static char arg0[] = "tpsim", a1[] = "--log=root.thres:critical", a2[] = "--log=xbt_cfg.thres:critical",
                a3[] = "--log=no_loc";
    static char* argv[] = {arg0, a1, a2, a3, nullptr};
    the_engine = new sg4::Engine(&argc, argv);
    sg4::Engine::set_config("network/model:CM02");
    sg4::Engine::set_config("network/crosstraffic:0");
    sg4::Engine::set_config("network/TCP-gamma:1e30");
  }
  return *the_engine;
}

struct Shared : StepEnv {
  std::vector<ReplicaScheduler> schedulers;
  std::vector<sg4::SemaphorePtr> wake;
  std::vector<bool> flows;   // per replica: run collectives as flows
  sg4::SemaphorePtr all_done;
  long remaining = 0;
  long rr_next = 0;
  // Times since `start`, as the requests and records count them. Fast-forward: the next arrival
  // (infinity after the last one) and the latest completion so far (a replica's own clock may
  // run ahead of the engine's); the latest arrivals' instant, exactly as the requests say.
  double next_arrival = std::numeric_limits<double>::infinity();
  double latest_finish = 0;
  double arrived = 0;
  double now() const { return sg4::Engine::get_clock() - start; }
  // Brings the engine's clock up to a replica's own clock (no-op when they agree).
  void catch_up(double clock) {
    if (start + clock <= sg4::Engine::get_clock()) return;
    ++result.events;
    sg4::this_actor::sleep_until(start + clock);
  }
};

void trace_on_gpus(StepEnv& sh, const std::vector<int>& gpus, const std::string& name, double start, double duration) {
  for (int g : gpus)
    sh.spec->trace->add({sh.spec->trace_process, "GPU " + std::to_string(g), name, start - sh.start, duration});
}

// Runs the collective's bandwidth part as SimGrid flows; traced per link when asked.
void run_flows(const CollectivePlan& c, StepEnv& sh) {
  std::vector<sg4::CommPtr> comms;
  for (const auto& f : c.flows) {
    auto* src = sg4::Host::by_name(f.leg.src_host);
    auto* dst = sg4::Host::by_name(f.leg.dst_host);
    comms.push_back(sg4::Comm::sendto_async(src, dst, static_cast<uint64_t>(std::llround(std::max(1.0, f.bytes)))));
  }
  const double start = sg4::Engine::get_clock();
  sh.result.events += long(comms.size());
  for (std::size_t i = 0; i < comms.size(); ++i) {
    comms[i]->wait();
    if (!sh.spec->trace) continue;
    const auto& links = sh.spec->collectives->topology().platform().links;
    for (const auto& l : c.flows[i].leg.links)
      sh.spec->trace->add({sh.spec->trace_process, "link " + links[l.link].id,
                           c.flows[i].leg.src_host + "->" + c.flows[i].leg.dst_host, start - sh.start, sg4::Engine::get_clock() - start});
  }
  ++sh.result.flow_collectives;
}

// Executes a step segment by segment: compute, then the collective (latency, then flows or the
// closed-form bandwidth time). Op by op when tracing.
void run_segments(const std::vector<Segment>& segs, StepEnv& sh, const std::vector<int>& gpus, bool flows) {
  const bool trace = sh.spec->trace != nullptr;
  for (const auto& seg : segs) {
    if (trace) {
      for (const auto& [name, t] : seg.ops) {
        trace_on_gpus(sh, gpus, name, sg4::Engine::get_clock(), t);
        ++sh.result.events;
        sg4::this_actor::sleep_for(t);
      }
    } else if (seg.compute_s > 0) {
      ++sh.result.events;
      sg4::this_actor::sleep_for(seg.compute_s);
    }
    if (!seg.collective) continue;
    const CollectivePlan& c = *seg.collective;
    const double start = sg4::Engine::get_clock();
    sh.result.events += (c.latency_s > 0) + !flows;
    if (c.latency_s > 0) sg4::this_actor::sleep_for(c.latency_s);
    if (flows) run_flows(c, sh);
    else sg4::this_actor::sleep_for(c.bandwidth_s);
    if (trace)
      trace_on_gpus(sh, gpus, std::string(collective_op_name(c.op)) + " " + algorithm_name(c.algorithm) + "/" + protocol_name(c.protocol),
                    start, sg4::Engine::get_clock() - start);
  }
}

// A replica's loop. Fast-forward: a step that runs in closed form (no flows, no trace) and ends
// before the next arrival cannot be observed by anything else — other replicas share no link
// with it, and only an arrival reads its state (the router) or adds to its queue — so it runs
// without a SimGrid event: the replica's own clock `now` advances, and the engine's catches up
// before anything can see the difference (a step that reaches the next arrival, flows, waiting
// for work, the last completion). In both modes a replica's clock is the sum of its step times
// since it last waited (the engine's clock, advanced by several sleeps at once, can differ from
// it in the last bits), so stepping one event per step gives the same records, bit for bit
// (tests/engine/fast_forward_test.cpp).
void replica_actor(Shared* sh, int r) {
  ReplicaScheduler& sched = sh->schedulers[r];
  const RunSpec& spec = *sh->spec;
  const auto& gpus = spec.replicas[r].gpus;
  const bool may_skip = spec.fast_forward && !sh->flows[r] && !spec.trace;
  const Parallelism& parallel = spec.parallel_of(r);
  StepTimer timer(*spec.model, parallel, spec.gpu, *spec.collectives, gpus);
  ReplicaScheduler::Step step;
  std::vector<RequestRecord> done;
  double now = sh->now();  // since the run's start: the same sums whenever a run starts
  while (true) {
    if (!sched.next_step(step, now)) {
      sh->catch_up(now);
      sh->wake[r]->acquire();
      now = std::max(now, sh->arrived);  // woken by an arrival: its exact instant, not the engine's rounding of it
      continue;
    }
    if (sh->flows[r] || spec.trace) {
      const StepPlan plan = plan_step(step_ops(*spec.model, parallel, step.work), spec.gpu, *spec.collectives, gpus, spec.trace != nullptr);
      sh->catch_up(now);
      execute_step(plan, *sh, gpus, sh->flows[r]);
      now = sh->now();
    } else if (const double t = timer.closed_form_s(step.work); may_skip && now + t < sh->next_arrival) {
      now += t;
    } else {
      sh->catch_up(now);
      ++sh->result.events;
      sg4::this_actor::sleep_for(t);
      now += t;  // the replica's clock: the sum of its step times since it last waited, in both modes
    }
    ++sh->result.steps;
    sh->result.kv_peak_usage = std::max(sh->result.kv_peak_usage, sched.kv_usage());
    done.clear();
    sched.finish_step(step, now, r, done);
    for (auto& rec : done) {
      if (spec.trace)
        spec.trace->add({spec.trace_process, "requests (replica " + std::to_string(r) + ")",
                         fmt::format("request {}: {} + {} tokens, TTFT {:.1f} ms", rec.id, rec.prompt_tokens, rec.output_tokens,
                                     (rec.first_token_s - rec.arrival_s) * 1e3),
                         rec.arrival_s, rec.finish_s - rec.arrival_s});
      sh->result.records.push_back(rec);
    }
    if (!done.empty()) sh->latest_finish = std::max(sh->latest_finish, now);
    sh->remaining -= long(done.size());
    if (sh->remaining == 0 && !done.empty()) {
      sh->catch_up(sh->latest_finish);
      sh->all_done->release();
    }
  }
}

int route(Shared& sh, const std::string& policy) {
  const int n = int(sh.schedulers.size());
  if (policy == "round_robin") return int(sh.rr_next++ % n);
  int best = 0;
  for (int r = 1; r < n; ++r) {
    const bool better = policy == "least_kv" ? sh.schedulers[r].kv_usage() < sh.schedulers[best].kv_usage()
                                             : sh.schedulers[r].outstanding() < sh.schedulers[best].outstanding();
    if (better) best = r;
  }
  return best;
}

// Requests that arrive at the same instant (a closed batch, equal trace timestamps) are all
// enqueued before any replica is woken: a release hands control to the woken replica, which
// would otherwise schedule its first step with only the first of them.
void arrival_actor(Shared* sh) {
  const RunSpec& spec = *sh->spec;
  const auto& reqs = spec.requests;
  std::set<int> woken;
  for (std::size_t i = 0; i < reqs.size();) {
    const double at = sh->start + reqs[i].arrival_s;
    sh->next_arrival = reqs[i].arrival_s;
    if (at > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(at);
    woken.clear();
    for (const double instant = reqs[i].arrival_s; i < reqs.size() && reqs[i].arrival_s == instant; ++i) {
      const int r = route(*sh, spec.scheduler.router);
      if (!sh->schedulers[r].can_ever_fit(reqs[i])) {
        ++sh->result.dropped;
        if (--sh->remaining == 0) sh->all_done->release();
        continue;
      }
      sh->schedulers[r].enqueue(reqs[i]);
      woken.insert(r);
    }
    sh->arrived = reqs[i - 1].arrival_s;
    sh->next_arrival = i < reqs.size() ? reqs[i].arrival_s : std::numeric_limits<double>::infinity();
    for (int r : woken) sh->wake[r]->release();
  }
  if (sh->remaining > 0) sh->all_done->acquire();
  sh->result.makespan_s = sg4::Engine::get_clock() - sh->start - (reqs.empty() ? 0 : reqs.front().arrival_s);
  for (auto& s : sh->schedulers) sh->result.preemptions += s.preemptions();
}

}  // namespace

void execute_step(const StepPlan& plan, StepEnv& env, const std::vector<int>& gpus, bool flows) {
  if (!flows && !env.spec->trace) {
    sg4::this_actor::sleep_for(plan.closed_form_s());
    return;
  }
  plan.for_each([&](const std::vector<Segment>& segs, int times) {
    for (int i = 0; i < times; ++i) run_segments(segs, env, gpus, flows);
  });
  if (plan.host_extra_s > 0) sg4::this_actor::sleep_for(plan.host_extra_s);
}

void engine_load_platform(const std::string& platform_file, const Topology& topology) {
  auto& e = engine();
  if (loaded_platform.empty()) {
    e.load_platform(platform_file);
    e.get_netzone_root()->get_network_model()->set_lat_factor_cb(
        [](double, const sg4::Host*, const sg4::Host*, const std::vector<sg4::Link*>&,
           const std::unordered_set<sg4::NetZone*>&) { return 0.0; });
    loaded_platform = platform_file;
  } else if (loaded_platform != platform_file) {
    throw std::logic_error("one platform per process: " + loaded_platform + " is loaded, not " + platform_file);
  }
  for (const auto& l : topology.platform().links) {
    // SimGrid names the two halves of a SPLITDUPLEX link <id>_UP and <id>_DOWN.
    for (const std::string& name : l.split_duplex ? std::vector<std::string>{l.id + "_UP", l.id + "_DOWN"} : std::vector<std::string>{l.id})
      sg4::Link::by_name(name)->set_bandwidth(l.bandwidth_Bps);
  }
}

RunResult engine_run(const RunSpec& spec) {
  auto& e = engine();
  auto sh = std::make_shared<Shared>();
  sh->spec = &spec;
  sh->start = sg4::Engine::get_clock();
  sh->remaining = long(spec.requests.size());
  sh->all_done = sg4::Semaphore::create(0);
  // Which replicas share a link with another replica: those run their collectives as flows.
  std::vector<std::set<int>> used(spec.replicas.size());
  for (std::size_t r = 0; r < spec.replicas.size(); ++r) {
    sh->schedulers.emplace_back(spec.scheduler, spec.replicas[r].kv_blocks, spec.kv_shape_of(r));
    sh->wake.push_back(sg4::Semaphore::create(0));
    for (const auto& l : spec.collectives->links_used(spec.replicas[r].gpus)) used[r].insert(spec.collectives->resource_of(l));
    if (spec.parallel.ep > 1)
      for (const auto& l : spec.collectives->links_used(spec.replicas[r].gpus, CollectiveOp::all_to_all))
        used[r].insert(spec.collectives->resource_of(l));
  }
  for (std::size_t r = 0; r < spec.replicas.size(); ++r) {
    bool shared = false;
    for (std::size_t o = 0; o < spec.replicas.size(); ++o)
      if (o != r)
        for (int res : used[r]) shared = shared || used[o].count(res);
    sh->flows.push_back(shared || spec.force_flows);
    sh->result.shared_links = sh->result.shared_links || shared;
  }
  if (spec.requests.empty()) return {};
  sh->next_arrival = spec.requests.front().arrival_s;
  auto* host0 = sg4::Host::by_name(spec.collectives->topology().platform().gpu(spec.replicas[0].gpus[0])->host);
  for (std::size_t r = 0; r < spec.replicas.size(); ++r)
    sg4::Actor::create("replica" + std::to_string(r), host0, replica_actor, sh.get(), int(r))->daemonize();
  sg4::Actor::create("arrivals", host0, arrival_actor, sh.get());
  e.run();
  // Completion order, ties by replica and request: the same whether or not replicas fast-forwarded.
  std::stable_sort(sh->result.records.begin(), sh->result.records.end(), [](const RequestRecord& a, const RequestRecord& b) {
    return std::tie(a.finish_s, a.replica, a.id) < std::tie(b.finish_s, b.replica, b.id);
  });
  return std::move(sh->result);
}

}  // namespace tpsim
