// Will TP=2 win on decode? Chapter 1.4's one-line answer beside the simulator's.
//
// One line (Eq. 1.4.7): TP=2 halves the weight bytes each GPU reads per step and adds n_coll
// all-reduces (2L for a transformer with separate attention and MLP blocks), so it breaks even when
//   n_coll · alpha* = M_w / (2 B_mem)   =>   alpha* = M_w / (4 L B_mem)   (n_coll = 2L)
// with M_w the model's weight bytes and B_mem the GPU's achievable memory bandwidth. alpha here
// is what one small all-reduce costs (the chapter's alpha_eff: the collective tax is
// n_coll · alpha_eff), so the measured value compared with alpha* is the log's time at the decode
// all-reduce size, B·d·s bytes.
// Simulated: the whole decode step at TP=1 and TP=2 (sim/model/step_cost) with the collective
// model the caller gives (fitted calibration, platform), which adds what the line leaves out:
// attention over the KV cache, launch, the LM head and compute, and reads only the embedding rows
// it needs.
#pragma once
#include <string>
#include <vector>

#include "config/model_card.hpp"
#include "curve_reading.hpp"
#include "model/step_cost.hpp"

namespace tpsim {

// alpha_eff within this factor of alpha* either way: "too close to call" (a chosen band: the
// chapter names two effects, narrower GEMMs and the barrier, that move the real break-even).
constexpr double TOO_CLOSE_FACTOR = 1.25;

struct GpuChoice {
  const GpuSpec* spec = nullptr;
  std::string source;  // where the GPU came from, e.g. "the log's Rank lines", "assumed: ..."
  double hbm_Bps = 0;  // B_mem
  std::string hbm_source = "";
};

struct DecodeEstimate {
  std::string model;
  double weight_B = 0;       // M_w
  int layers = 0;            // L
  int collectives = 0;       // n_coll at TP=2
  GpuChoice gpu;
  double decode_size_B = 0;  // B·d·s at B = 1
  double alpha_eff_s = 0;    // measured time of that all-reduce
  bool alpha_extrapolated = false;
  int measured_ranks = 0;    // the log's rank count (2 for a TP=2 answer)
  double alpha_star_s = 0;
  std::string verdict;       // "TP=2 should win on decode", "... lose ...", "too close to call on decode"
  double margin = 1;         // alpha* / alpha_eff
  double tp1_s = 0, tp2_s = 0;  // the line's step times: M_w / B_mem and M_w / (2 B_mem) + n_coll · alpha_eff
};
DecodeEstimate estimate_tp2_decode(const CurveReading& r, const ModelCard& model, const GpuChoice& gpu);

struct SimulatedDecode {
  int tp = 1;
  Breakdown step;              // seconds per term
  int allreduces = 0;
  double per_allreduce_s = 0;  // the simulated decode all-reduce
  std::string how;             // its algorithm / protocol, calibrated or not
};
struct DecodeSimulation {
  std::string platform;
  std::vector<int> gpus;       // the TP=2 pair; TP=1 runs on the first
  int batch = 1;
  long context = 0;
  SimulatedDecode tp1, tp2;
  std::vector<std::string> calibration_use;  // what the fitted calibration did
};
// `pair` must hold two GPUs of `collectives`' platform.
DecodeSimulation simulate_decode(const ModelCard& model, const GpuModel& gpu, const CollectiveModel& collectives,
                                 const std::vector<int>& pair, int batch, long context);

// The model's all-reduce sizes per step (B·d·s at batch b, T·d·s for a prefill of T tokens), as
// the step generator makes them.
double allreduce_size_B(const ModelCard& model, long tokens);
// All-reduces per decode step at TP=2.
int allreduces_per_step(const ModelCard& model);

}  // namespace tpsim
