// Prefill/decode disaggregation without the engine: the KV bytes a request moves, how they split
// over the shards when the pools' TP differ, the transfer time alone, the scenario syntax and the
// xPyD builder. Each check states its formula.
#include <doctest/doctest.h>

#include "config/disaggregation.hpp"
#include "config/model_card.hpp"
#include "model/kv_transfer.hpp"

using namespace tpsim;

namespace {
const std::string ROOT = TPSIM_SOURCE_DIR;
const ModelCard& llama8b() {
  static const ModelCard m = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  return m;
}
// Llama-3.1-8B bf16: K and V x 32 layers x 8 KV heads x 128 dims x 2 B = 131072 B per token.
constexpr double KV_PER_TOKEN = 2.0 * 32 * 8 * 128 * 2;
}  // namespace

TEST_CASE("KV transfer bytes per request: prompt tokens x 2 x layers x KV heads x head_dim x bytes") {
  for (auto [p, d] : {std::pair{1, 1}, std::pair{2, 4}, std::pair{8, 1}, std::pair{4, 8}}) {
    CAPTURE(p);
    CAPTURE(d);
    const auto shards = kv_transfer_shards(llama8b(), p, d);
    CHECK(kv_transfer_bytes_per_token(shards) == KV_PER_TOKEN);
    // An 8K-token prompt moves 8192 x 131072 B = 1 GiB whatever the split.
    CHECK(kv_transfer_bytes_per_token(shards) * 8192 == 1073741824.0);
  }
}

TEST_CASE("TP mismatch: each decode rank reads its heads from the prefill ranks that hold them") {
  // Prefill TP=2 (4 heads per rank), decode TP=4 (2 heads per rank): decode rank j reads from
  // prefill rank j / 2 its 2 heads, 131072 / 4 = 32768 B per token.
  const auto up = kv_transfer_shards(llama8b(), 2, 4);
  REQUIRE(up.size() == 4);
  for (int j = 0; j < 4; ++j) {
    CHECK(up[std::size_t(j)].decode_rank == j);
    CHECK(up[std::size_t(j)].prefill_rank == j / 2);
    CHECK(up[std::size_t(j)].bytes_per_token == KV_PER_TOKEN / 4);
  }
  // Prefill TP=8 -> decode TP=2: decode rank j gathers 4 heads from prefill ranks 4j..4j+3, one
  // head (131072 / 8 = 16384 B per token) each.
  const auto down = kv_transfer_shards(llama8b(), 8, 2);
  REQUIRE(down.size() == 8);
  for (const auto& s : down) {
    CHECK(s.prefill_rank / 4 == s.decode_rank);
    CHECK(s.bytes_per_token == KV_PER_TOKEN / 8);
  }
}

TEST_CASE("replicated KV heads: decode TP=16 over 8 heads receives every head twice") {
  // Each of the 16 decode ranks holds one head (a copy): 16 x 16384 B = 2 x 131072 B per token.
  CHECK(kv_transfer_bytes_per_token(kv_transfer_shards(llama8b(), 8, 16)) == 2 * KV_PER_TOKEN);
  // Prefill TP=16 (two copies of each head) -> decode TP=1: only copy 0 (the even ranks) sends.
  const auto shards = kv_transfer_shards(llama8b(), 16, 1);
  REQUIRE(shards.size() == 8);
  for (const auto& s : shards) CHECK(s.prefill_rank % 2 == 0);
  CHECK(kv_transfer_bytes_per_token(shards) == KV_PER_TOKEN);
}

TEST_CASE("transfer time on an uncontended link = bytes / bandwidth + latency") {
  // 2gpu_nvlink.xml: GPU 0 -> GPU 1 over one NVLink of 312.5 GB/s and 1 us.
  Topology topo(load_platform_file(ROOT + "/platforms/2gpu_nvlink.xml"), {}, "");
  CollectiveModel cm(topo, {}, nullptr);
  const auto shards = kv_transfer_shards(llama8b(), 1, 1);
  const KvRoute route = kv_route(topo, {0}, {1}, shards);
  CHECK(route.flows.size() == 1);
  CHECK(route.worst_class == PathClass::NVL);
  CHECK_FALSE(route.staged);
  // 4096 tokens x 131072 B = 536870912 B; / 312.5e9 B/s = 1.71799 ms; + 1 us.
  CHECK(kv_transfer_time_alone(route, 4096, cm) == doctest::Approx(4096 * KV_PER_TOKEN / 312.5e9 + 1e-6).scale(0).epsilon(1e-12));
}

TEST_CASE("two shards on one NVSwitch port share it: TP=2 -> TP=1 on DGX H100") {
  // Prefill ranks 0 and 1 each send 4 heads (65536 B per token) into GPU 2's NVSwitch port
  // (450 GB/s down): together 131072 B per token through one port, latency 0.5 + 0.5 us.
  Topology topo(load_platform_file(ROOT + "/platforms/dgx_h100.xml"), {}, "");
  CollectiveModel cm(topo, {}, nullptr);
  const KvRoute route = kv_route(topo, {0, 1}, {2}, kv_transfer_shards(llama8b(), 2, 1));
  CHECK(route.flows.size() == 2);
  CHECK(kv_transfer_time_alone(route, 8192, cm) == doctest::Approx(8192 * KV_PER_TOKEN / 450e9 + 1e-6).scale(0).epsilon(1e-12));
}

TEST_CASE("the scenario's pools: layout is prefill then decode instances, tp the decode pool's") {
  const Scenario s = load_scenario(ROOT + "/scenarios/pd_disagg_dgx_h100.yaml");
  const ConfigSpec* pd = nullptr;
  for (const auto& c : s.configs)
    if (c.name == "1P3D TP=2") pd = &c;
  REQUIRE(pd);
  REQUIRE(pd->disaggregation);
  CHECK(pd->disaggregation->prefill.instances == std::vector<std::vector<int>>{{0, 1}});
  CHECK(pd->disaggregation->decode.tp == 2);
  CHECK(pd->layout == std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  CHECK(pd->tp == 2);
}

TEST_CASE("xpyd_config builds an xPyD configuration the search can list") {
  const ConfigSpec c = xpyd_config({0, 1, 2, 3, 4, 5, 6, 7}, 2, 1, 3, 2);
  REQUIRE(c.disaggregation);
  CHECK(c.name == "2P3D TP=1/2");
  CHECK(c.disaggregation->prefill.instances == std::vector<std::vector<int>>{{0}, {1}});
  CHECK(c.disaggregation->decode.instances == std::vector<std::vector<int>>{{2, 3}, {4, 5}, {6, 7}});
  CHECK(xpyd_config({0, 1, 2, 3, 4, 5, 6, 7}, 2, 1, 6, 1).name == "2P6D");
  CHECK(xpyd_config({0, 1, 2, 3}, 1, 2, 1, 2).name == "1P1D TP=2");
  CHECK_THROWS_WITH_AS(xpyd_config({0, 1, 2}, 1, 2, 1, 2), "1 prefill x TP=2 + 1 decode x TP=2 needs 4 GPUs; 3 given", ValueError);
  CHECK_THROWS_WITH_AS(xpyd_config({0, 0}, 1, 1, 1, 1), "an xPyD configuration's GPU list repeats a GPU", ValueError);
  CHECK_THROWS_AS(xpyd_config({0, 1}, 0, 1, 1, 1), ValueError);
}
