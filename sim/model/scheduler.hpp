// A replica's continuous-batching scheduler, vLLM-like and free of SimGrid:
// * the KV cache holds `kv_blocks` blocks of `block_size` tokens; a sequence holds
//   ceil(tokens / block_size) blocks;
// * prefill-first (default): when requests wait and fit (max_num_seqs, token budget, free
//   blocks), the step is a prefill of as many whole prompts as fit; otherwise every running
//   sequence decodes one token;
// * chunked prefill: every step decodes the running sequences and fills the rest of the token
//   budget with prompt chunks;
// * when a decode needs a block and none is free, the newest running sequence is preempted
//   (its blocks freed, recomputed later from its prompt plus what it generated).
// Records are written when a request finishes; the engine only asks for steps and times them.
// With sliding-window layers a block is block_size tokens of every layer's KV, and a sequence of
// T tokens holds ceil(T / block_size) · (1 - window_share) + ceil(min(T, window + block_size) /
// block_size) · window_share blocks (rounded up): the window layers' share stops growing past
// the window (vLLM's hybrid allocator frees what falls out of it).
#pragma once
#include <deque>
#include <vector>

#include "config/scenario.hpp"
#include "workloads/requests.hpp"
#include "workloads/step_ops.hpp"

namespace tpsim {

struct RequestRecord {
  long id = 0;
  int replica = 0;
  double arrival_s = 0, scheduled_s = 0, first_token_s = 0, finish_s = 0;
  long prompt_tokens = 0, output_tokens = 0;
  int preemptions = 0;
  double max_itl_s = 0;  // longest gap between two tokens
  // Disaggregated serving: the prefill instance, and the KV transfer to the decode instance.
  int prefill_replica = -1;
  double kv_wait_s = 0;      // from the end of the prefill until the decode instance had room for the KV
  double kv_transfer_s = 0;  // the transfer itself
};

struct KvBlockShape {
  long window = 0;          // tokens a sliding-window layer keeps; 0: none
  double window_share = 0;  // the sliding-window layers' part of a token's KV bytes
};

class ReplicaScheduler {
public:
  ReplicaScheduler(const SchedulerSpec& spec, long kv_blocks, KvBlockShape shape = {});

  void enqueue(const Request& r);
  // The next step's work; empty when nothing can run.
  struct Step {
    std::vector<SequenceWork> work;
    std::vector<int> slots;  // running-sequence slot of each work item
    long tokens = 0;
    bool prefill = false;
  };
  bool next_step(Step& step, double now);
  // Advances the sequences of `step`, which ended at `now`; finished requests go to `done`.
  void finish_step(const Step& step, double now, int replica, std::vector<RequestRecord>& done);

  // Disaggregated serving (engine/disaggregated.cpp). A prefill instance keeps a finished
  // prompt's blocks until its KV has left (hold, then release). A decode instance reserves room
  // for a request whose KV is on its way — its prompt plus the first token, which the prefill
  // produced — when blocks and a sequence slot are free and no preempted sequence waits; when the
  // KV has arrived, the request decodes from its second token.
  void hold_blocks(long blocks) { used_blocks_ += blocks; }
  void release_blocks(long blocks) { used_blocks_ -= blocks; }
  long blocks_for_tokens(long tokens) const { return blocks_for(tokens); }
  bool reserve_prefilled(const Request& r);
  void start_prefilled(const Request& r, const RequestRecord& rec, double now);

  long outstanding() const { return long(waiting_.size() + running_.size()) + reserved_; }
  double kv_usage() const { return kv_blocks_ ? double(used_blocks_) / double(kv_blocks_) : 0; }
  long preemptions() const { return preemptions_; }
  bool idle() const { return waiting_.empty() && running_.empty(); }
  // A request that can never fit in the KV cache (prompt + output larger than all blocks).
  bool can_ever_fit(const Request& r) const;

private:
  struct Seq {
    Request req;
    RequestRecord rec;
    long computed = 0;       // tokens whose KV is in the cache
    long generated = 0;      // output tokens produced
    long blocks = 0;
    double last_token_s = -1;
  };
  long blocks_for(long tokens) const;
  long target_prefill(const Seq& s) const { return s.req.prompt_tokens + s.generated; }
  bool grow(Seq& s, long tokens);
  void preempt_newest();

  SchedulerSpec spec_;
  long kv_blocks_;
  KvBlockShape shape_;
  long used_blocks_ = 0;
  long preemptions_ = 0;
  long reserved_ = 0;  // sequences whose KV is on its way (disaggregated decode)
  std::deque<Seq> waiting_;
  std::vector<Seq> running_;
};

}  // namespace tpsim
