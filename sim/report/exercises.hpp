// The chapter's Recall and Derive exercises (../shared/seeds, "Exercises"), answered for the
// scenario's own model and box from the plans that produced its table: bytes each rank sends
// in a ring all-reduce and its steps, bus against algorithm bandwidth, the decode message size
// and its regime at batch 1 and 128, the crossover S* = N·α·BW and the break-even latency
// α* = M_w / (4·L·B_mem). Reads metric records only.
#pragma once
#include <string>

#include "model/results.hpp"

namespace tpsim {

// α and BW of the chapter's ring model T = 2(N−1)·α + 2(N−1)/N · S/BW, read off one of tpsim's
// plans (time = latency + bus bytes / bus bandwidth): α = latency / (2(N−1)), BW = bus bandwidth.
struct RingTerms {
  int n = 2;
  double alpha_s = 0, bw_Bps = 0;
  double crossover_B() const { return n * alpha_s * bw_Bps; }  // S* = N·α·BW
};
RingTerms ring_terms(const CollectivePlan& plan);

// α* = M_w / (4·L·B_mem): the per-collective latency at which TP=2's 2L all-reduces per token eat
// the decode time it saves by halving the weights each GPU reads.
double break_even_latency_s(const ModelShape& m);

std::string markdown_exercises(const ScenarioResult& r);

}  // namespace tpsim
