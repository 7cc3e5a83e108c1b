// The chapter's reference numbers out of the cost model (no engine): each check states the
// formula and the numbers behind the expected value.
#include <doctest/doctest.h>

#include "config/model_card.hpp"
#include "model/collective_defaults.hpp"
#include "model/domains.hpp"
#include "model/flow_solver.hpp"
#include "report/writers.hpp"

#include <nlohmann/json.hpp>
#include "model/step_cost.hpp"

using namespace tpsim;

namespace {

const std::string ROOT = TPSIM_SOURCE_DIR;

struct Box {
  Scenario scenario;
  ModelCard model = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  PlatformDesc platform;
  explicit Box(const std::string& platform_file, double alpha = 5e-6) : platform(load_platform_file(ROOT + "/platforms/" + platform_file)) {
    scenario.hardware.hbm_bandwidth_Bps = 1.5e12;
    scenario.collectives.fixed_latency_s = alpha;
    scenario.engine.graph_launch_s = 0;
    scenario.engine.graph_kernel_s = 0;
  }
  Breakdown step(int tp, long context, long tokens) {
    Topology topo(platform, scenario.hardware, "");
    CollectiveModel cm(topo, scenario.collectives, nullptr);
    GpuModel gpu = gpu_model(*platform.gpus[0].spec, scenario, nullptr, 2, 2);
    std::vector<int> group;
    for (int g = 0; g < tp; ++g) group.push_back(g);
    return plan_step(step_ops(model, tp, {{context, tokens}}), gpu, cm, group).breakdown;
  }
};

}  // namespace

TEST_CASE("Llama-3.1-8B weighs 16.06 GB in bf16") {
  ModelCard m = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  // 32 x (2 x 4096 x 4096 + 2 x 4096 x 1024 + 3 x 4096 x 14336 + 2 x 4096) + 2 x 128256 x 4096 + 4096 params, 2 B each
  CHECK(m.weight_bytes() == doctest::Approx(16.06e9).scale(0).epsilon(0.001));
}

TEST_CASE("decode at B=1: TP=1 ~10.0 ms, TP=2 ~5.34 ms, speedup ~1.88") {
  Box box("2gpu_nvlink.xml");
  // TP=1: weights read / HBM = (16.06 - 1.05 embedding table, of which only one row is read) GB / 1.5 TB/s = 10.0 ms
  const double t1 = box.step(1, 128, 1).total();
  CHECK(t1 == doctest::Approx((16.06e9 - 128256.0 * 4096 * 2) / 1.5e12).scale(0).epsilon(0.01));
  // TP=2: half the sharded weights (10.0 / 2 = 5.0 ms) + 65 collectives x 5 us (2L all-reduces + the logits all-gather)
  const Breakdown b2 = box.step(2, 128, 1);
  CHECK(b2.collectives == doctest::Approx(65 * 5e-6).scale(0).epsilon(0.01));
  CHECK(b2.total() == doctest::Approx(t1 / 2 + 65 * 5e-6).scale(0).epsilon(0.01));
  CHECK(t1 / b2.total() == doctest::Approx(1.88).scale(0).epsilon(0.02));
}

TEST_CASE("prefill of 4096 tokens: 64 all-reduces of 33.6 MB cost ~8.6 ms on NVLink and ~90 ms on PCIe") {
  // S = T d s = 4096 x 4096 x 2 = 33.55 MB; at N=2 each rank moves S x 2(N-1)/N = S.
  const double S = 4096.0 * 4096 * 2;
  for (auto [file, bw] : {std::pair{"2gpu_nvlink.xml", 250e9}, std::pair{"2gpu_pcie.xml", 24e9}}) {
    Box box(file, 0.0);  // alpha 0: the bandwidth term alone
    const Breakdown b = box.step(2, 0, 4096);
    // 64 x S / BW: 8.59 ms at 250 GB/s, 89.5 ms at 24 GB/s (+ the logits all-gather, ~1 us)
    CHECK(b.collectives == doctest::Approx(64 * S / bw).scale(0).epsilon(0.01));
  }
}

TEST_CASE("ring all-reduce at N=4 sends 1.5 S per rank in 6 steps; busbw = algbw x 1.5") {
  CHECK(bus_factor(CollectiveOp::all_reduce, 4) == doctest::Approx(1.5).scale(0));  // 2(N-1)/N
  CHECK(latency_steps(Algorithm::ring, CollectiveOp::all_reduce, 4) == 6);  // 2(N-1)
  CHECK(120e9 * bus_factor(CollectiveOp::all_reduce, 4) == doctest::Approx(180e9).scale(0));  // 120 GB/s alg -> 180 bus
  CHECK(bus_factor(CollectiveOp::all_gather, 8) == doctest::Approx(7.0 / 8).scale(0));
}

TEST_CASE("crossover S* = N alpha BW = 2.5 MB at N=2, 5 us, 250 GB/s") {
  // The ring model T = 2(N-1) alpha + 2(N-1)/N S / BW has equal terms at S* = N alpha BW.
  const double N = 2, alpha = 5e-6, BW = 250e9, S = N * alpha * BW;
  CHECK(S == doctest::Approx(2.5e6).scale(0));
  CHECK(2 * (N - 1) * alpha == doctest::Approx(2 * (N - 1) / N * S / BW).scale(0));
  // A decode all-reduce is B d s: 8 KiB at B=1, 512 KiB at B=64 — far below S*.
  CHECK(1 * 4096 * 2 == 8192);
  CHECK(64 * 4096 * 2 == 512 * 1024);
}

TEST_CASE("the 4-GPU ring over two NVLink pairs crosses the socket link twice, not four times") {
  PlatformDesc p = load_platform_file(ROOT + "/platforms/4gpu_nv12_sys.xml");
  Topology topo(p, {}, "");
  CollectiveModel cm(topo, {}, nullptr);
  const auto& ring = cm.ring_order({0, 2, 1, 3});
  int sys = 0;
  for (int i = 0; i < 4; ++i) sys += topo.path(ring[i], ring[(i + 1) % 4]).path_class == PathClass::SYS;
  CHECK(sys == 2);
}

TEST_CASE("a TP degree that does not divide the heads is refused; one above the KV heads replicates them") {
  ModelCard m = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  CHECK_THROWS_WITH_AS(check_tp(m, 3), "TP=3 does not divide the 32 attention heads of Llama-3.1-8B", ValueError);
  CHECK(check_tp(m, 16).kv_replicated);  // 8 KV heads, TP=16: each KV head on 2 GPUs
  CHECK(check_tp(m, 16).kv_heads_per_rank == 1);
}

TEST_CASE("sequence parallelism: each layer all-reduce becomes a reduce-scatter and an all-gather of the same bytes") {
  ModelCard m = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  int all_reduce = 0, reduce_scatter = 0, all_gather = 0;
  double bus_ar = 0, bus_sp = 0;
  for (const Op& op : step_ops(m, 4, {{0, 1024}}, 1, false).flatten())
    if (op.kind == OpKind::collective && op.collective == CollectiveOp::all_reduce)
      ++all_reduce, bus_ar += op.collective_bytes * bus_factor(op.collective, 4);
  for (const Op& op : step_ops(m, 4, {{0, 1024}}, 1, true).flatten()) {
    if (op.kind != OpKind::collective || op.name == std::string("logits_all_gather")) continue;
    reduce_scatter += op.collective == CollectiveOp::reduce_scatter;
    all_gather += op.collective == CollectiveOp::all_gather;
    bus_sp += op.collective_bytes * bus_factor(op.collective, 4);
  }
  CHECK(all_reduce == 2 * 32);  // 2L
  CHECK(reduce_scatter == 2 * 32);
  CHECK(all_gather == 2 * 32);
  // 2(N-1)/N S = (N-1)/N S + (N-1)/N S
  CHECK(bus_sp == doctest::Approx(bus_ar).scale(0));
}

TEST_CASE("an uncalibrated Blackwell or one-process A100 NVLink group says its small collectives read optimistic, as held-out boxes ran them") {
  Topology b200(load_platform_file(ROOT + "/tests/data/measured/nccl/platforms/8x-b200-hgx-nv18.xml"), {}, "");
  const CollectiveModel model(b200, {}, nullptr);
  const std::vector<int> all{0, 1, 2, 3, 4, 5, 6, 7};
  const std::string note =
      "on B200-SXM-180GB NVLink: the one held-out Blackwell node (8x HGX B200, tests/data/measured/SOURCES.md) ran all-reduces of "
      "64 B-256 KiB in more time than simulated (the model's times 25-41% short; floor 19-20 us against NCCL's 15.2 on 8 ranks; its "
      "all-gathers' and reduce-scatters' floor 16 against 11.0), a decode step's sizes: read small collectives here as optimistic, or "
      "calibrate on a log of the box (tpsim fit)";
  CHECK(model.group_notes(CollectiveOp::all_reduce, all) == std::vector<std::string>{note});
  // The same report's reduce-scatter (session 33: 128 B-512 KiB 21-34% fast) says so too.
  CHECK(model.group_notes(CollectiveOp::reduce_scatter, all) == std::vector<std::string>{note});
  // Its all-to-all's floor was the model's; its mid sizes, as the H100 node's, were not.
  CHECK(model.group_notes(CollectiveOp::all_to_all, all) ==
        std::vector<std::string>{"all-to-all within a node: two held-out alltoall_perf sweeps (8x H100, 8x B200; "
                                 "tests/data/measured/SOURCES.md) ran their 1-64 MiB (the H100's from 32 MiB) 19-57% slower than "
                                 "simulated, an expert-parallel step's dispatch sizes, their floors as simulated: NCCL splits each "
                                 "peer's bytes over a few channels there, whose copy rate tpsim does not model; read mid-size "
                                 "all-to-alls as optimistic, or calibrate on a log of the box (tpsim fit)"});
  Topology h100(load_platform_file(ROOT + "/platforms/dgx_h100.xml"), {}, "");
  CHECK(CollectiveModel(h100, {}, nullptr).group_notes(CollectiveOp::all_reduce, all).empty());
  // A100 NVLink: with one process per GPU, as engines run, the held-out one-process sweeps' lean; a thread
  // driving 8 GPUs (nccl-tests -g 8) hides it behind its launches, and 2 ranks were not measured so.
  Topology a100(load_platform_file(ROOT + "/platforms/dgx_a100.xml"), {}, "");
  CHECK(CollectiveModel(a100, {}, nullptr).group_notes(CollectiveOp::all_reduce, all) ==
        std::vector<std::string>{"on A100-SXM4-80GB NVLink, one process per GPU: two held-out 8x A100 sweeps run so (mpirun on an 80 GB "
                                 "box; ABCI's 40 GB nodes on NCCL 2.8.4; tests/data/measured/SOURCES.md) ran all-reduces of 1-64 KiB "
                                 "in more time than simulated (the model's times 22-51% short; floors 17-20 us against NCCL's 15.2), "
                                 "a decode step's sizes: read small "
                                 "all-reduces here as optimistic, or calibrate on a log of the box run with one process per GPU (tpsim fit)"});
  CollectiveSpec g8;
  g8.gpus_per_thread = 8;
  CHECK(CollectiveModel(a100, g8, nullptr).group_notes(CollectiveOp::all_reduce, all).empty());
  CHECK(CollectiveModel(a100, {}, nullptr).group_notes(CollectiveOp::all_reduce, {0, 1}).empty());
}

TEST_CASE("NVLS on NVSwitch: large all-reduces go through the switch, above the ring's bus bandwidth") {
  // DGX H100: 450 GB/s NVSwitch ports. A ring's bus bandwidth is at most the port (Simple: 450 GB/s);
  // NVLS moves S per rank at 65.7% of the port: bus bandwidth 0.657 x 450 x 2(N-1)/N = 517.4 GB/s at N=8.
  Topology topo(load_platform_file(ROOT + "/platforms/dgx_h100.xml"), {}, "");
  CollectiveModel cm(topo, {}, nullptr);
  const std::vector<int> all{0, 1, 2, 3, 4, 5, 6, 7};
  const CollectivePlan& big = cm.plan(CollectiveOp::all_reduce, 1 << 30, all);
  CHECK(big.algorithm == Algorithm::nvls);
  CHECK(big.bus_bw_Bps == doctest::Approx(0.657 * 450e9 * 1.75).scale(0));
  // Its chunk pipeline at 1 GiB: 16 channels x 8 heads = 128 chunks a loop, 128 KiB each (1 GiB is not
  // below 64 x 128 x 128 KiB), 64 loops; a loop 4.3 us + 128 x 128 KiB x 1.75 / 517.4 GB/s = 61.05 us:
  // 1.8 x 61.05 + 64 x 4.3 = 385.1 us, on NVLS's fixed 11 us.
  CHECK(big.nvls_pipeline_s == doctest::Approx(1.8 * (4.3e-6 + 128 * 131072 * 1.75 / (0.657 * 450e9 * 1.75)) + 64 * 4.3e-6).scale(0));
  CHECK(big.latency_s == doctest::Approx(11e-6 + big.nvls_pipeline_s).scale(0));
  // Below 8 MiB the chunk is 16 KiB (2 x 128 x 32 KiB = 8 MiB), from 64 MiB 64 KiB: small sizes run small chunks.
  CHECK(nvls_chunk_B(4 << 20, 128) == 16384);
  CHECK(nvls_chunk_B(8 << 20, 128) == 32768);
  CHECK(nvls_chunk_B(64 << 20, 128) == 65536);
  CHECK(nvls_chunk_B(1 << 30, 128) == 131072);
  // Blackwell runs 24 NVLS channels on one node from NCCL 2.27 (32 before, 16 on Hopper): its 128 KiB
  // chunks start at 64 x 24 x 8 x 128 KiB = 1.5 GiB, the step the 8x B200 sweep shows between 1 and 2 GiB.
  CHECK(nvls_channels(90, "", 1) == 16);
  CHECK(nvls_channels(100, "", 1) == 24);
  CHECK(nvls_channels(100, "2.26.2", 1) == 32);
  CHECK(nvls_channels(100, "", 2) == 32);  // across nodes NVLS_NCHANNELS_SM100 in every release (nvls.cc)
  CHECK(cm.plan(CollectiveOp::all_reduce, 1024, all).algorithm == Algorithm::ring);  // small: the ring's lower latency wins
  // An NVLS all-reduce's ports carry S (1 + 1/N) (multimem.ld_reduce out, multimem.st in): the 8-rank
  // share moves to other rank counts by (1 + 1/8) / (1 + 1/N), 0.9 on 4 GPUs of the same box:
  // bus bandwidth 0.657 x 450 x 0.9 x 2(4-1)/4 = 399.1 GB/s (a published 4-GPU H100 sweep: 367).
  CHECK(nvls_ranks_factor(CollectiveOp::all_reduce, 8) == 1.0);
  CHECK(nvls_ranks_factor(CollectiveOp::all_reduce, 4) == doctest::Approx(1.125 / 1.25).scale(0));
  CHECK(nvls_ranks_factor(CollectiveOp::all_gather, 4) == 1.0);
  CollectiveSpec nvls;
  nvls.algorithm = "nvls";
  const CollectivePlan& four = CollectiveModel(topo, nvls, nullptr).plan(CollectiveOp::all_reduce, 1 << 30, {0, 1, 2, 3});
  CHECK(four.algorithm == Algorithm::nvls);
  CHECK(four.bus_bw_Bps == doctest::Approx(0.657 * 450e9 * 0.9 * 1.5).scale(0));
  // Left to choose, 4 GPUs run a ring at 1 GiB: half the heads, so twice NVLS's loops for the bytes (128 x
  // 4.3 us), as NCCL 2.29 chooses on 2 and 4 GPUs of an H100 node (NVLS from 6).
  CHECK(cm.plan(CollectiveOp::all_reduce, 1 << 30, {0, 1, 2, 3}).algorithm == Algorithm::ring);
  // Blackwell (sm_100) reaches less of its port: 0.657 x NCCL's nvlsEfficiency 0.74 / 0.85 (tuning.cc), 0.57.
  CHECK(nvls_generation_share(90) == 1.0);
  CHECK(nvls_generation_share(100) == doctest::Approx(0.74 / 0.85).scale(0));
  CHECK(default_bus_bw_Bps(Protocol::Simple, Algorithm::nvls, CollectiveOp::all_reduce, 8, PathClass::NVL, false, 900e9, 100) ==
        doctest::Approx(0.657 * 0.74 / 0.85 * 900e9 * 1.75).scale(0));
  // Not on A100's NVSwitch (NVLink SHARP needs Hopper's third-generation switch): a ring at 80% of
  // the 300 GB/s port, 240 GB/s, against the recorded 235 GB/s of 8x A100 at 8 GiB.
  Topology a100(load_platform_file(ROOT + "/platforms/dgx_a100.xml"), {}, "");
  const CollectiveModel a100_model(a100, {}, nullptr);
  const CollectivePlan& ring = a100_model.plan(CollectiveOp::all_reduce, 1 << 30, all);
  CHECK(ring.algorithm == Algorithm::ring);
  CHECK(ring.bus_bw_Bps == doctest::Approx(0.8 * 300e9).scale(0));
  // Not offered on NVLink pairs or for 2 ranks.
  Topology pairs(load_platform_file(ROOT + "/platforms/4gpu_nv12_sys.xml"), {}, "");
  CHECK(CollectiveModel(pairs, {}, nullptr).plan(CollectiveOp::all_reduce, 1 << 30, {0, 1}).algorithm == Algorithm::direct);
}

TEST_CASE("NVLink domains: connected components of the NVL pairs (Boost.Graph)") {
  Topology box(load_platform_file(ROOT + "/platforms/4gpu_nv12_sys.xml"), {}, "");
  CHECK(gpu_domains(box, PathClass::NVL) == std::vector<std::vector<int>>{{0, 1}, {2, 3}});
  CHECK(gpu_domains(box, PathClass::SYS) == std::vector<std::vector<int>>{{0, 1, 2, 3}});
  Topology dgx(load_platform_file(ROOT + "/platforms/dgx_h100.xml"), {}, "");
  CHECK(gpu_domains(dgx, PathClass::NVL).size() == 1);  // NVSwitch: one domain of 8
  Topology lesson(load_platform_file(ROOT + "/platforms/4xh100_nvl_nvlink_down.xml"), {}, "");
  CHECK(gpu_domains(lesson, PathClass::NVL) == std::vector<std::vector<int>>{{0}, {1}, {2, 3}});  // the broken pair
}

TEST_CASE("a link latency override adds its difference to every step of every collective") {
  // 2 ranks over NVLink (1 us in the platform), raised to 11 us: an all-reduce has 2 steps, so it
  // takes 2 x 10 us longer.
  const PlatformDesc p = load_platform_file(ROOT + "/platforms/2gpu_nvlink.xml");
  HardwareSpec slower;
  slower.links["nvlink"].latency_s = 11e-6;
  Topology base(p, {}, ""), slow(p, slower, "");
  const double t0 = CollectiveModel(base, {}, nullptr).plan(CollectiveOp::all_reduce, 8192, {0, 1}).time_s();
  const double t1 = CollectiveModel(slow, {}, nullptr).plan(CollectiveOp::all_reduce, 8192, {0, 1}).time_s();
  CHECK(t1 - t0 == doctest::Approx(2 * 10e-6).scale(0));
}

TEST_CASE("host staging is a pace, not more bytes on the links: 2x RTX 2080 Ti without P2P, 4.0 GB/s busbw") {
  // 2 ranks, direct/Simple through host memory: pace = lane x Simple x 1/3 = 12 GB/s x 1 x 1/3 = 4 GB/s.
  // The four staged legs (two each way) cross the shared 32 GB/s host bridge: 4 S / 32 GB/s = S / 8 GB/s,
  // faster than the pace, so the pace decides: t = L + S / 4 GB/s (the recorded log: 67,137 us at 256 MiB).
  Topology topo(load_platform_file(ROOT + "/platforms/2xrtx2080ti_pix_nop2p.xml"), {}, "");
  CollectiveModel cm(topo, {}, nullptr);
  const double S = 268435456;
  const CollectivePlan& c = cm.plan(CollectiveOp::all_reduce, S, {0, 1});
  CHECK(c.staged);
  CHECK(c.protocol == Protocol::Simple);
  CHECK(c.bus_bw_Bps == doctest::Approx(4e9).scale(0));
  CHECK(c.bandwidth_s == doctest::Approx(S / 4e9).scale(0));
  CHECK(c.time_s() == doctest::Approx(67137e-6).scale(0).epsilon(0.01));
  // Alone, the flows the engine runs take the same time: their bytes are scaled to the pace.
  std::vector<SolverFlow> flows;
  for (const auto& f : c.flows) {
    SolverFlow sf{f.bytes, {}};
    for (const auto& l : f.leg.links) sf.resources.push_back(cm.resource_of(l));
    flows.push_back(sf);
  }
  CHECK(completion_time(flows, cm.resource_capacities()) == doctest::Approx(S / 4e9).scale(0));
}

TEST_CASE("LL's bus bandwidth cap by GPU generation: Ampere 42 GB/s (measured), Hopper 141 GB/s (NCCL's)") {
  // 8 ranks: LL (15.2 us + bus bytes / cap) beats LL128 (40.6 us + bus bytes / 0.48 of the wire on
  // A100, 0.75 on H100) and Simple at 256 KiB on A100 (26.1 us against 43.8) and 1 MiB on H100 (28.2
  // against 46.0).
  // Without the cap LL would run at half of 80% of the port: 120 GB/s (A100), 180 GB/s (H100).
  const std::vector<int> all{0, 1, 2, 3, 4, 5, 6, 7};
  for (auto [file, size, cap] : {std::tuple{"dgx_a100.xml", 256 << 10, 42e9}, std::tuple{"dgx_h100.xml", 1 << 20, 141e9}}) {
    CAPTURE(file);
    Topology topo(load_platform_file(ROOT + "/platforms/" + file), {}, "");
    const CollectiveModel model(topo, {}, nullptr);
    const CollectivePlan& c = model.plan(CollectiveOp::all_reduce, size, all);
    CHECK(c.protocol == Protocol::LL);
    CHECK(c.bus_bw_Bps == doctest::Approx(cap).scale(0));
  }
}

TEST_CASE("LL's step synchronisation: 0.33 us a step once NCCL grows its threads, overlapping the data and -g N launches") {
  // NCCL grows LL's 64 threads from 64 x 8 B x ranks on a ring (4 KiB on 8 ranks), 64 x 8 B = 512 B on
  // a tree across nodes; from there each step costs 0.33 us more.
  CHECK(ll_sync_s(Algorithm::ring, CollectiveOp::all_reduce, 8, 1, 4095) == 0);
  CHECK(ll_sync_s(Algorithm::ring, CollectiveOp::all_reduce, 8, 1, 4096) == doctest::Approx(14 * 0.33e-6).scale(0));  // 2 (8 - 1) steps
  CHECK(ll_sync_s(Algorithm::ring, CollectiveOp::all_gather, 8, 1, 4096) == doctest::Approx(7 * 0.33e-6).scale(0));   // 8 - 1 steps
  CHECK(ll_sync_s(Algorithm::tree, CollectiveOp::all_reduce, 16, 2, 511) == 0);
  CHECK(ll_sync_s(Algorithm::tree, CollectiveOp::all_reduce, 16, 2, 512) == doctest::Approx(16 * 0.33e-6).scale(0));  // 2 (7 + 1) steps
  CHECK(ll_sync_s(Algorithm::nvls, CollectiveOp::all_reduce, 8, 1, 1 << 20) == 0);
  CHECK(ll_sync_s(Algorithm::direct, CollectiveOp::all_to_all, 8, 1, 1 << 20) == 0);
  // DGX H100, 64 KiB on 8 ranks, one process per GPU: ring/LL, bus bytes 1.75 x 64 KiB = 114688 B at
  // 141 GB/s = 0.813 us, under the 14 x 0.33 = 4.62 us of synchronisation, which the time takes whole:
  // 15.2 + 4.62 = 19.82 us (the log: 19.54). At 1 MiB the data (13.0 us) covers it: 15.2 + 13.0 = 28.2 us.
  const std::vector<int> all{0, 1, 2, 3, 4, 5, 6, 7};
  Topology topo(load_platform_file(ROOT + "/platforms/dgx_h100.xml"), {}, "");
  const CollectiveModel model(topo, {}, nullptr);
  const CollectivePlan& small = model.plan(CollectiveOp::all_reduce, 64 << 10, all);
  CHECK(small.protocol == Protocol::LL);
  CHECK(small.ll_sync_s == doctest::Approx(14 * 0.33e-6 - 114688 / 141e9).scale(0));
  CHECK(small.time_s() == doctest::Approx((15.2 + 14 * 0.33) * 1e-6).scale(0).epsilon(1e-9));
  CHECK(model.plan(CollectiveOp::all_reduce, 1 << 20, all).ll_sync_s == 0);
  // One thread driving the 8 GPUs (-g 8): its 7 serial launches, 7 x 2.9 = 20.3 us, absorb it.
  CollectiveSpec g8;
  g8.gpus_per_thread = 8;
  const CollectiveModel serial(topo, g8, nullptr);
  CHECK(serial.plan(CollectiveOp::all_reduce, 64 << 10, all).ll_sync_s == 0);
  CHECK(serial.plan(CollectiveOp::all_reduce, 64 << 10, all).time_s() == doctest::Approx((15.2 + 20.3) * 1e-6 + 114688 / 141e9).scale(0).epsilon(1e-9));
}

TEST_CASE("an LL128 all-reduce on one NVLink node: 0.48 of the wire before Hopper (measured), NCCL's share from Hopper") {
  // 8 MiB on 8 ranks, bus bytes 14/8 x 8 MiB = 14.68 MB. A100 (300 GB/s ports): LL128 at 0.48 x 300 =
  // 144 GB/s, 40.6 + 101.9 = 142.5 us. H100 (450 GB/s): NCCL's share, 0.8 x 120/128 x 450 = 337.5 GB/s,
  // 40.6 + 43.5 = 84.1 us under NCCL_PROTO=LL128; left to choose, H100 runs NVLS there (81.3 us, below).
  const std::vector<int> all{0, 1, 2, 3, 4, 5, 6, 7};
  CollectiveSpec ll128;
  ll128.protocol = "LL128";
  for (auto [file, bus_Bps, time_us] : {std::tuple{"dgx_a100.xml", 144e9, 142.5}, std::tuple{"dgx_h100.xml", 337.5e9, 84.1}}) {
    CAPTURE(file);
    Topology topo(load_platform_file(ROOT + "/platforms/" + file), {}, "");
    const CollectiveModel model(topo, ll128, nullptr);
    const CollectivePlan& c = model.plan(CollectiveOp::all_reduce, 8 << 20, all);
    CHECK(c.algorithm == Algorithm::ring);
    CHECK(c.protocol == Protocol::LL128);
    CHECK(c.bus_bw_Bps == doctest::Approx(bus_Bps).scale(0));
    CHECK(c.time_s() == doctest::Approx(time_us * 1e-6).scale(0).epsilon(1e-3));
  }
  // NVLS at 8 MiB: 8 MiB is not below 2 x 128 x 32 KiB, so 32 KiB chunks, 2 loops; a loop 4.3 us +
  // 128 x 32 KiB x 1.75 / 517.4 GB/s = 18.49 us: 11 + 1.8 x 18.49 + 2 x 4.3 + 14.68 MB / 517.4 GB/s = 81.3 us,
  // below the ring's 84.1 (the DGX H100 log: 83.0 us; NCCL 2.30 runs NVLS from 2 MiB on 8x H100).
  Topology h100(load_platform_file(ROOT + "/platforms/dgx_h100.xml"), {}, "");
  const CollectivePlan& auto_plan = CollectiveModel(h100, {}, nullptr).plan(CollectiveOp::all_reduce, 8 << 20, all);
  CHECK(auto_plan.algorithm == Algorithm::nvls);
  CHECK(auto_plan.time_s() == doctest::Approx(81.3e-6).scale(0).epsilon(1e-3));
}

TEST_CASE("tpsim collective --json: one row per size with its plan, units named, the measured time when compared") {
  // 2-rank NVLink pair, 8 MiB all-reduce: direct/Simple, latency 8.4 + 2 x 8.8 = 26 us, bus
  // bandwidth 80% of 312.5 GB/s = 250 GB/s, bus bytes = S (2(N-1)/N = 1): 26 us + 33.6 us.
  Topology topo(load_platform_file(ROOT + "/platforms/2gpu_nvlink.xml"), {}, "");
  CollectiveModel cm(topo, {}, nullptr);
  const double S = 8 << 20;
  const CollectivePlan& c = cm.plan(CollectiveOp::all_reduce, S, {0, 1});
  CollectiveSweep sweep{"all_reduce", "platforms/2gpu_nvlink.xml", "0-1", "on", "", "m.log", 2, 1, {}, {{S, &c, 20e-6}}};
  const auto j = nlohmann::json::parse(render_collective_json(sweep, "test"));
  CHECK(j["calibration"].is_null());
  CHECK(j["nccl_version"].is_null());  // a current NCCL
  CHECK(j["group_launch"] == false);   // one process per GPU launches nothing for others
  CHECK(j["units"]["busbw_GBps"].get<std::string>().find("bus bandwidth") == 0);
  // One thread on 2 GPUs with NCCL 2.8.3: launched as one group (NCCL_LAUNCH_MODE=GROUP before 2.9).
  CollectiveSweep old_nccl = sweep;
  old_nccl.gpus_per_thread = 2;
  old_nccl.nccl_version = "2.8.3";
  const auto g = nlohmann::json::parse(render_collective_json(old_nccl, "test"));
  CHECK(g["nccl_version"] == "2.8.3");
  CHECK(g["group_launch"] == true);
  // What the text output notes about the run's paths, the JSON carries as they read.
  CHECK(j["notes"].empty());
  old_nccl.notes = {"across nodes over AWS EFA with A100-SXM4-40GB GPUs: ..."};
  CHECK(nlohmann::json::parse(render_collective_json(old_nccl, "test"))["notes"][0] == old_nccl.notes[0]);
  const auto& row = j["rows"][0];
  CHECK(row["size_B"].get<double>() == S);
  CHECK(row["algorithm"] == "direct");
  CHECK(row["protocol"] == "Simple");
  CHECK(row["time_us"].get<double>() == doctest::Approx(26 + S / 250e9 * 1e6).scale(0).epsilon(1e-6));
  CHECK(row["tree_fill_us"].get<double>() == 0);  // a ring: no tree chunks stored and forwarded
  CHECK(row["busbw_GBps"].get<double>() == doctest::Approx(S / c.time_s() / 1e9).scale(0).epsilon(1e-6));
  CHECK(row["measured_time_us"].get<double>() == doctest::Approx(20.0).scale(0));
  CHECK(row["error"].get<double>() == doctest::Approx(c.time_s() / 20e-6 - 1).scale(0).epsilon(1e-6));
}
