// Serving metrics of one configuration's run (summarize, runner_parts.hpp): latency percentiles,
// throughput, goodput against the scenario's SLOs, and whether the queue keeps growing.
#include <algorithm>
#include <limits>

#include "runner_parts.hpp"

namespace tpsim {
namespace {

// Time average of the number of requests in the system over [from, to], by sweeping arrivals
// (+1) and completions (-1) in time order.
double time_average_in_system(const std::vector<RequestRecord>& records, double from, double to) {
  std::vector<std::pair<double, int>> events;
  for (const auto& rec : records) events.push_back({rec.arrival_s, +1}), events.push_back({rec.finish_s, -1});
  std::sort(events.begin(), events.end());
  double area = 0, last = from;
  int n = 0;
  for (const auto& [t, d] : events) {
    area += n * (t - last);
    last = t;
    n += d;
  }
  return to > from ? area / (to - from) : 0;
}

// Saturation: the queue keeps growing. A stable system's queueing delay is bounded, so the last
// quarter of arrivals waits about as long as the first; an overloaded one's wait grows with every
// arrival. Saturated when the last quarter waits longer than the first by more than the median
// service time (scheduling to completion).
bool queue_grows(std::vector<RequestRecord> records) {
  if (records.size() < 8) return false;
  std::vector<double> service;
  for (const auto& r : records) service.push_back(r.finish_s - r.scheduled_s);
  const double median_service = percentiles(service).p50;
  std::sort(records.begin(), records.end(), [](const auto& a, const auto& b) { return a.arrival_s < b.arrival_s; });
  const std::size_t q = records.size() / 4;
  double first = 0, last = 0;
  for (std::size_t i = 0; i < q; ++i) {
    first += records[i].scheduled_s - records[i].arrival_s;
    last += records[records.size() - 1 - i].scheduled_s - records[records.size() - 1 - i].arrival_s;
  }
  return (last - first) / double(q) > median_service;
}

}  // namespace

void summarize(ConfigResult& r, RunResult&& run, const Scenario& s) {
  std::vector<double> ttft, tpot, e2e, queue, itl;
  double first_arrival = std::numeric_limits<double>::infinity(), last_finish = 0, tokens = 0;
  long good = 0;
  for (const auto& rec : run.records) {
    ttft.push_back(rec.first_token_s - rec.arrival_s);
    if (rec.output_tokens > 1) tpot.push_back((rec.finish_s - rec.first_token_s) / double(rec.output_tokens - 1));
    e2e.push_back(rec.finish_s - rec.arrival_s);
    queue.push_back(rec.scheduled_s - rec.arrival_s);
    itl.push_back(rec.max_itl_s);
    first_arrival = std::min(first_arrival, rec.arrival_s);
    last_finish = std::max(last_finish, rec.finish_s);
    tokens += double(rec.output_tokens);
    const double t = rec.first_token_s - rec.arrival_s, e = rec.finish_s - rec.arrival_s;
    const double p = rec.output_tokens > 1 ? (rec.finish_s - rec.first_token_s) / double(rec.output_tokens - 1) : 0;
    good += (!s.slo.ttft_p99_s || t <= *s.slo.ttft_p99_s) && (!s.slo.tpot_p99_s || p <= *s.slo.tpot_p99_s) &&
            (!s.slo.e2e_p99_s || e <= *s.slo.e2e_p99_s);
  }
  r.ttft_s = percentiles(ttft), r.tpot_s = percentiles(tpot), r.e2e_s = percentiles(e2e);
  r.queue_s = percentiles(queue), r.itl_max_s = percentiles(itl);
  const double span = last_finish - (run.records.empty() ? 0 : first_arrival);
  const double n = double(run.records.size());
  r.requests_completed = long(run.records.size());
  r.requests_dropped += run.dropped;  // after those refused before the run (served_requests)
  r.preemptions = run.preemptions;
  r.kv_peak_usage = run.kv_peak_usage;
  r.shared_links = run.shared_links;
  r.flow_collectives = run.flow_collectives;
  r.events = run.events;
  if (span > 0) {
    r.throughput_tok_s = tokens / span;
    r.throughput_req_s = n / span;
    r.mean_in_system = time_average_in_system(run.records, first_arrival, last_finish);
    r.goodput_req_s = double(good) / span;
  }
  r.throughput_tok_s_per_gpu = r.throughput_tok_s / gpus_of(r);
  r.slo_attainment = n > 0 ? double(good) / n : 0;
  if (s.workload.arrivals != ArrivalKind::closed && !run.records.empty()) {
    double last_arrival = 0;
    for (const auto& rec : run.records) last_arrival = std::max(last_arrival, rec.arrival_s);
    r.offered_rate_req_s = last_arrival > first_arrival ? (n - 1) / (last_arrival - first_arrival) : 0;
    r.saturated = r.offered_rate_req_s > 0 && queue_grows(run.records);
  }
  r.records = std::move(run.records);
}

}  // namespace tpsim
