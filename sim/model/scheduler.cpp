#include "scheduler.hpp"

#include <algorithm>
#include <cmath>

namespace tpsim {

ReplicaScheduler::ReplicaScheduler(const SchedulerSpec& spec, long kv_blocks, KvBlockShape shape)
    : spec_(spec), kv_blocks_(kv_blocks), shape_(shape) {}

long ReplicaScheduler::blocks_for(long tokens) const {
  const long b = spec_.block_size, full = (tokens + b - 1) / b;
  if (shape_.window <= 0 || shape_.window_share <= 0) return full;
  const long windowed = (std::min(tokens, shape_.window + b) + b - 1) / b;
  return long(std::ceil(double(full) * (1 - shape_.window_share) + double(windowed) * shape_.window_share - 1e-9));
}

bool ReplicaScheduler::can_ever_fit(const Request& r) const {
  return blocks_for(r.prompt_tokens + r.output_tokens) <= kv_blocks_;
}

void ReplicaScheduler::enqueue(const Request& r) {
  Seq s;
  s.req = r;
  s.rec.id = r.id;
  s.rec.arrival_s = r.arrival_s;
  s.rec.prompt_tokens = r.prompt_tokens;
  s.rec.output_tokens = r.output_tokens;
  s.rec.scheduled_s = -1;
  waiting_.push_back(s);
}

bool ReplicaScheduler::reserve_prefilled(const Request& r) {
  const long need = blocks_for(r.prompt_tokens + 1);
  if (!waiting_.empty() || long(running_.size()) + reserved_ >= spec_.max_num_seqs || used_blocks_ + need > kv_blocks_) return false;
  used_blocks_ += need;
  ++reserved_;
  return true;
}

void ReplicaScheduler::start_prefilled(const Request& r, const RequestRecord& rec, double now) {
  --reserved_;
  Seq s;
  s.req = r;
  s.rec = rec;
  s.computed = r.prompt_tokens;
  s.generated = 1;
  s.blocks = blocks_for(r.prompt_tokens + 1);
  s.last_token_s = now;
  running_.push_back(std::move(s));
}

bool ReplicaScheduler::grow(Seq& s, long tokens) {
  const long need = blocks_for(tokens) - s.blocks;
  if (need <= 0) return true;
  if (used_blocks_ + need > kv_blocks_) return false;
  used_blocks_ += need;
  s.blocks += need;
  return true;
}

void ReplicaScheduler::preempt_newest() {
  Seq s = running_.back();
  running_.pop_back();
  used_blocks_ -= s.blocks;
  s.blocks = 0;
  s.computed = 0;
  ++s.rec.preemptions;
  ++preemptions_;
  waiting_.push_front(s);
}

bool ReplicaScheduler::next_step(Step& step, double now) {
  step.work.clear(), step.slots.clear();  // keeps their capacity: a step is planned millions of times
  step.tokens = 0, step.prefill = false;
  long budget = spec_.max_batched_tokens;
  const bool chunked = spec_.chunked_prefill;
  // Prefill-first: admit whole prompts while they fit.
  auto admit = [&](long max_chunk) {
    while (!waiting_.empty() && long(running_.size()) < spec_.max_num_seqs && budget > 0) {
      Seq& s = waiting_.front();
      const long remaining = target_prefill(s) - s.computed;
      long chunk = std::min(remaining, max_chunk);
      if (!chunked && chunk > budget && step.tokens > 0) break;  // a whole prompt, or the step is full
      if (chunked) chunk = std::min(chunk, budget);
      if (!grow(s, s.computed + chunk)) break;
      // `now` is the engine clock minus the run's start: clamp the bits that subtraction loses.
      if (s.rec.scheduled_s < 0) s.rec.scheduled_s = std::max(now, s.req.arrival_s);
      step.work.push_back({s.computed, chunk});
      step.slots.push_back(int(running_.size()));
      step.tokens += chunk;
      budget -= chunk;
      running_.push_back(std::move(s));
      waiting_.pop_front();
      if (!chunked) step.prefill = true;
      if (chunk < remaining) break;  // partially prefilled: it stays at the head of running
    }
  };
  if (!chunked) {
    admit(1L << 40);
    if (!step.work.empty()) return true;
  }
  // Decode (and, when chunked, continue partial prefills) for running sequences.
  for (std::size_t i = 0; i < running_.size(); ++i) {
    Seq& s = running_[i];
    const long remaining_prefill = target_prefill(s) - s.computed;
    long tokens = remaining_prefill > 0 ? std::min(remaining_prefill, std::max(1L, budget)) : 1;
    while (!grow(s, s.computed + tokens)) {
      if (running_.size() - 1 <= i) {  // nobody newer to preempt: preempt this one
        preempt_newest();
        tokens = 0;
        break;
      }
      preempt_newest();
    }
    if (tokens == 0) break;
    step.work.push_back({s.computed, tokens});
    step.slots.push_back(int(i));
    step.tokens += tokens;
    budget -= tokens;
  }
  if (chunked && budget > 0) admit(budget);
  return !step.work.empty();
}

void ReplicaScheduler::finish_step(const Step& step, double now, int replica, std::vector<RequestRecord>& done) {
  for (std::size_t w = 0; w < step.work.size(); ++w) {
    Seq& s = running_[step.slots[w]];
    s.computed += step.work[w].new_tokens;
    if (s.computed < target_prefill(s)) continue;  // prompt not finished yet: no token
    ++s.generated;
    if (s.generated == 1 && s.rec.first_token_s == 0) s.rec.first_token_s = now;
    if (s.last_token_s >= 0) s.rec.max_itl_s = std::max(s.rec.max_itl_s, now - s.last_token_s);
    s.last_token_s = now;
  }
  // Remove finished sequences in place (stable order keeps "newest last" for preemption).
  std::size_t kept = 0;
  for (std::size_t i = 0; i < running_.size(); ++i) {
    Seq& s = running_[i];
    if (s.generated >= s.req.output_tokens) {
      used_blocks_ -= s.blocks;
      s.rec.finish_s = now;
      s.rec.replica = replica;
      done.push_back(s.rec);
    } else {
      if (kept != i) running_[kept] = std::move(s);
      ++kept;
    }
  }
  running_.resize(kept);
}

}  // namespace tpsim
