#include "disaggregated.hpp"

#include <algorithm>
#include <deque>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <set>
#include <simgrid/s4u.hpp>

#include "model/step_timer.hpp"
#include "step_env.hpp"

namespace sg4 = simgrid::s4u;

namespace tpsim {
namespace {

// A prefilled request on its way to a decode instance.
struct Handoff {
  Request request;      // as it arrived (all its output tokens)
  RequestRecord record;  // from the prefill
  int prefill = 0;
  double ready_s = 0;   // engine clock at the end of the prefill
};

struct Instance {
  explicit Instance(ReplicaScheduler s) : scheduler(std::move(s)) {}
  ReplicaScheduler scheduler;
  sg4::SemaphorePtr wake = sg4::Semaphore::create(0);
  const std::vector<int>* gpus = nullptr;
  bool always_flows = false;      // shares a link with another instance: its collectives always run as flows
  std::vector<int> kv_routes;     // the KV routes (prefill x decodes + decode) that share one of its links
  std::deque<Handoff> transfers;  // decode: waiting for room for their KV
};

struct Run : StepEnv {
  const DisaggregatedRunSpec* pd = nullptr;
  std::vector<Instance> prefill, decode;
  std::map<long, Request> requests;          // by id, as they arrived
  std::vector<std::vector<KvRoute>> routes;  // [prefill][decode]
  std::vector<int> transfers_in_flight;      // per route, prefill x decodes + decode
  int& in_flight(int prefill, int decode_instance) {
    return transfers_in_flight[std::size_t(prefill) * decode.size() + std::size_t(decode_instance)];
  }
  sg4::SemaphorePtr all_done = sg4::Semaphore::create(0);
  long remaining = 0;
  long next_prefill = 0, next_decode = 0;    // round robin
};

int route(std::vector<Instance>& pool, const std::string& policy, long& next) {
  const int n = int(pool.size());
  if (policy == "round_robin") return int(next++ % n);
  int best = 0;
  for (int i = 1; i < n; ++i) {
    const auto& a = pool[std::size_t(i)].scheduler;
    const auto& b = pool[std::size_t(best)].scheduler;
    const long queued_a = long(pool[std::size_t(i)].transfers.size()), queued_b = long(pool[std::size_t(best)].transfers.size());
    if (policy == "least_kv" ? a.kv_usage() < b.kv_usage() : a.outstanding() + queued_a < b.outstanding() + queued_b) best = i;
  }
  return best;
}

void finish(Run& run, RequestRecord rec) {
  if (run.spec->trace)
    run.spec->trace->add({run.spec->trace_process, "requests (instance " + std::to_string(rec.replica) + ")",
                          fmt::format("request {}: {} + {} tokens, TTFT {:.1f} ms", rec.id, rec.prompt_tokens, rec.output_tokens,
                                      (rec.first_token_s - rec.arrival_s) * 1e3),
                          rec.arrival_s, rec.finish_s - rec.arrival_s});
  run.result.records.push_back(rec);
  if (--run.remaining == 0) run.all_done->release();
}

void transfer_actor(Run* run, Handoff h, int d);

// Starts the transfers the decode instance `d` has room for, in order.
void start_transfers(Run& run, int d) {
  Instance& dec = run.decode[std::size_t(d)];
  while (!dec.transfers.empty() && dec.scheduler.reserve_prefilled(dec.transfers.front().request)) {
    Handoff h = std::move(dec.transfers.front());
    dec.transfers.pop_front();
    auto* host = sg4::this_actor::get_host();
    // Counted in flight from now, before the actor runs: the step its prefill starts next sees it.
    ++run.in_flight(h.prefill, d);
    sg4::Actor::create("kv" + std::to_string(h.request.id), host, transfer_actor, &run, std::move(h), d);
  }
}

void transfer_actor(Run* run, Handoff h, int d) {
  const double t0 = sg4::Engine::get_clock();
  const KvRoute& kv = run->routes[std::size_t(h.prefill)][std::size_t(d)];
  int& in_flight = run->in_flight(h.prefill, d);
  if (kv.latency_s > 0) sg4::this_actor::sleep_for(kv.latency_s);
  std::vector<sg4::CommPtr> comms;
  for (const auto& f : kv.flows) {
    const double bytes = f.bytes_per_token * double(h.request.prompt_tokens);
    comms.push_back(sg4::Comm::sendto_async(sg4::Host::by_name(f.leg.src_host), sg4::Host::by_name(f.leg.dst_host),
                                            static_cast<uint64_t>(std::llround(std::max(1.0, bytes)))));
  }
  run->result.events += long(comms.size()) + 1;
  for (auto& c : comms) c->wait();
  --in_flight;
  const double now = sg4::Engine::get_clock();
  if (run->spec->trace)
    run->spec->trace->add({run->spec->trace_process, fmt::format("KV transfers to decode {}", d),
                           fmt::format("request {}: {} tokens from prefill {}", h.request.id, h.request.prompt_tokens, h.prefill),
                           t0 - run->start, now - t0});
  Instance& pre = run->prefill[std::size_t(h.prefill)];
  pre.scheduler.release_blocks(pre.scheduler.blocks_for_tokens(h.request.prompt_tokens));
  pre.wake->release();
  RequestRecord rec = h.record;
  rec.output_tokens = h.request.output_tokens;
  rec.prefill_replica = h.prefill;
  rec.kv_wait_s = t0 - h.ready_s;
  rec.kv_transfer_s = now - t0;
  rec.first_token_s = now - run->start;
  Instance& dec = run->decode[std::size_t(d)];
  dec.scheduler.start_prefilled(h.request, rec, now - run->start);
  dec.wake->release();
}

// Whether this step's collectives run as flows: always when the instance shares a link with
// another instance, else while a KV transfer that shares one of its links is in flight as the step
// starts (a transfer that starts mid-step meets the step's closed form: a decode step's
// all-reduces are latency-bound and carry ~1% of a port's rate, which a transfer does not notice).
bool step_flows(const Run& run, const Instance& inst) {
  if (inst.always_flows) return true;
  for (int r : inst.kv_routes)
    if (run.transfers_in_flight[std::size_t(r)] > 0) return true;
  return false;
}

// Steps an instance's scheduler forever (a daemon); `on_done` takes each finished record. A step
// without flows or a trace sleeps its closed-form time, from a StepTimer (the same time as its
// plan's, without building the plan each step: model/step_timer.hpp), as a co-located replica does.
template <class OnDone>
void instance_loop(Run& run, Instance& inst, const PoolRunSpec& pool, int replica, OnDone on_done) {
  const RunSpec& spec = *run.spec;
  Parallelism parallel;
  parallel.tp = pool.tp;
  parallel.sequence_parallel = spec.parallel.sequence_parallel;
  StepTimer timer(*spec.model, parallel, pool.gpu, *spec.collectives, *inst.gpus);
  ReplicaScheduler::Step step;
  std::vector<RequestRecord> done;
  while (true) {
    if (!inst.scheduler.next_step(step, sg4::Engine::get_clock() - run.start)) {
      inst.wake->acquire();
      continue;
    }
    const bool flows = step_flows(run, inst);
    if (flows || spec.trace) {
      const StepPlan plan = plan_step(step_ops(*spec.model, parallel, step.work), pool.gpu, *spec.collectives, *inst.gpus, spec.trace != nullptr);
      execute_step(plan, run, *inst.gpus, flows);
    } else {
      ++run.result.events;
      sg4::this_actor::sleep_for(timer.closed_form_s(step.work));
    }
    ++run.result.steps;
    run.result.kv_peak_usage = std::max(run.result.kv_peak_usage, inst.scheduler.kv_usage());
    done.clear();
    inst.scheduler.finish_step(step, sg4::Engine::get_clock() - run.start, replica, done);
    for (auto& rec : done) on_done(rec);
  }
}

void prefill_actor(Run* run, int p) {
  instance_loop(*run, run->prefill[std::size_t(p)], run->pd->prefill, p, [&](RequestRecord& rec) {
    const Request& original = run->requests.at(rec.id);
    if (original.output_tokens <= 1) return finish(*run, rec);  // nothing to decode
    Instance& pre = run->prefill[std::size_t(p)];
    pre.scheduler.hold_blocks(pre.scheduler.blocks_for_tokens(original.prompt_tokens));
    const int d = route(run->decode, run->spec->scheduler.router, run->next_decode);
    run->decode[std::size_t(d)].transfers.push_back({original, rec, p, sg4::Engine::get_clock()});
    start_transfers(*run, d);
  });
}

void decode_actor(Run* run, int d) {
  const int replica = int(run->prefill.size()) + d;
  Instance& dec = run->decode[std::size_t(d)];
  instance_loop(*run, dec, run->pd->decode, replica, [&](RequestRecord& rec) {
    rec.replica = replica;
    finish(*run, rec);
    start_transfers(*run, d);  // its blocks are free again
  });
}

void arrival_actor(Run* run) {
  const auto& reqs = run->spec->requests;
  std::set<int> woken;
  for (std::size_t i = 0; i < reqs.size();) {
    const double at = run->start + reqs[i].arrival_s;
    if (at > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(at);
    woken.clear();
    for (const double instant = reqs[i].arrival_s; i < reqs.size() && reqs[i].arrival_s == instant; ++i) {
      Request first = reqs[i];
      first.output_tokens = 1;
      const int p = route(run->prefill, run->spec->scheduler.router, run->next_prefill);
      const bool fits = run->prefill[std::size_t(p)].scheduler.can_ever_fit(first) && run->decode.front().scheduler.can_ever_fit(reqs[i]);
      if (!fits) {
        ++run->result.dropped;
        if (--run->remaining == 0) run->all_done->release();
        continue;
      }
      run->prefill[std::size_t(p)].scheduler.enqueue(first);
      woken.insert(p);
    }
    for (int p : woken) run->prefill[std::size_t(p)].wake->release();
  }
  if (run->remaining > 0) run->all_done->acquire();
  run->result.makespan_s = sg4::Engine::get_clock() - run->start - (reqs.empty() ? 0 : reqs.front().arrival_s);
  for (auto* pool : {&run->prefill, &run->decode})
    for (auto& inst : *pool) run->result.preemptions += inst.scheduler.preemptions();
}

// Resources (links, per direction) that the instances' collectives and the KV routes use: an
// instance that shares one with another instance runs its collectives as flows at every step; one
// that shares one with KV routes only, while a transfer on such a route is in flight (step_flows).
void choose_flows(Run& run) {
  const CollectiveModel& cm = *run.spec->collectives;
  std::vector<std::set<int>> used;
  std::vector<Instance*> all;
  for (auto* pool : {&run.prefill, &run.decode})
    for (auto& inst : *pool) {
      all.push_back(&inst);
      used.emplace_back();
      for (const auto& l : cm.links_used(*inst.gpus)) used.back().insert(cm.resource_of(l));
    }
  std::vector<std::set<int>> route_links;
  for (const auto& row : run.routes)
    for (const auto& r : row) {
      route_links.emplace_back();
      for (const auto& f : r.flows)
        for (const auto& l : f.leg.links) route_links.back().insert(cm.resource_of(l));
    }
  run.transfers_in_flight.assign(route_links.size(), 0);
  for (std::size_t i = 0; i < all.size(); ++i) {
    bool shared = run.spec->force_flows;
    for (int res : used[i])
      for (std::size_t o = 0; o < all.size(); ++o) shared = shared || (o != i && used[o].count(res));
    all[i]->always_flows = shared;
    for (std::size_t r = 0; r < route_links.size(); ++r)
      if (std::any_of(used[i].begin(), used[i].end(), [&](int res) { return route_links[r].count(res) > 0; }))
        all[i]->kv_routes.push_back(int(r));
    run.result.shared_links = run.result.shared_links || shared || !all[i]->kv_routes.empty();
  }
}

}  // namespace

RunResult engine_run_disaggregated(const DisaggregatedRunSpec& spec) {
  auto run = std::make_shared<Run>();
  run->spec = &spec.base;
  run->pd = &spec;
  run->start = sg4::Engine::get_clock();
  run->remaining = long(spec.base.requests.size());
  for (const auto& r : spec.base.requests) run->requests.emplace(r.id, r);
  for (const auto& [pool, insts] : {std::pair{&spec.prefill, &run->prefill}, std::pair{&spec.decode, &run->decode}})
    for (const auto& inst : pool->instances) {
      insts->emplace_back(ReplicaScheduler(pool->scheduler, inst.kv_blocks));
      insts->back().gpus = &inst.gpus;
    }
  const Topology& topo = spec.base.collectives->topology();
  for (const auto& p : spec.prefill.instances) {
    run->routes.emplace_back();
    for (const auto& d : spec.decode.instances) run->routes.back().push_back(kv_route(topo, p.gpus, d.gpus, spec.shards));
  }
  choose_flows(*run);
  if (spec.base.requests.empty()) return {};
  auto* host0 = sg4::Host::by_name(topo.platform().gpu(spec.prefill.instances[0].gpus[0])->host);
  for (int p = 0; p < int(run->prefill.size()); ++p) sg4::Actor::create("prefill" + std::to_string(p), host0, prefill_actor, run.get(), p)->daemonize();
  for (int d = 0; d < int(run->decode.size()); ++d) sg4::Actor::create("decode" + std::to_string(d), host0, decode_actor, run.get(), d)->daemonize();
  sg4::Actor::create("arrivals", host0, arrival_actor, run.get());
  sg4::Engine::get_instance()->run();
  return std::move(run->result);
}

}  // namespace tpsim
