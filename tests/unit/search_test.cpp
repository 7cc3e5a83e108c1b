// configs: auto (sim/model/splits.hpp, search_summary.hpp, placement.hpp): the splits of a box,
// the Pareto frontier, and the placement of groups of several sizes.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "config/platform_file.hpp"
#include "model/placement.hpp"
#include "model/search_summary.hpp"
#include "model/splits.hpp"

using namespace tpsim;

namespace {
const std::string ROOT = TPSIM_SOURCE_DIR;

std::set<std::string> names(const SplitList& l) {
  std::set<std::string> out;
  for (const auto& s : l.splits) out.insert(s.name());
  return out;
}
}  // namespace

TEST_CASE("every split of 4 GPUs: k x TP x PP using them all, and mixed TP degrees") {
  auto any = [](int) { return std::string(); };
  // TP in {4, 2, 1} x PP with k·TP·PP = 4: TP=4, 2xTP=2, TP=2xPP=2, 4xTP=1, 2xTP=1xPP=2, TP=1xPP=4;
  // mixed partitions of 4 into {4, 2, 1} with two degrees: 2 + 1 + 1. TP=3 is refused.
  auto no_three = [](int t) { return t == 3 ? std::string("TP=3 does not divide the heads") : std::string(); };
  const SplitList l = enumerate_splits(4, true, no_three, any);
  CHECK(names(l) == std::set<std::string>{"TP=4", "2xTP=2", "TP=2xPP=2", "4xTP=1", "2xTP=1xPP=2", "TP=1xPP=4", "TP=2 + 2xTP=1"});
  CHECK(l.left_out == std::vector<std::string>{"TP=3 does not divide the heads"});
  for (const auto& s : l.splits) CHECK(s.gpus() == 4);
  // With TP=3 allowed, 3 + 1 is a split too.
  CHECK(names(enumerate_splits(4, true, any, any)).count("TP=3 + TP=1") == 1);
  // Fewer GPUs too (fewest_gpus): a lone TP=1 is the smallest.
  const SplitList all = enumerate_splits(4, false, no_three, any);
  CHECK(names(all).count("TP=1") == 1);
  CHECK(names(all).count("TP=2 + TP=1") == 1);
}

TEST_CASE("xPyD splits of 8 GPUs: x prefill of TP=p and y decode of TP=d with x p + y d = 8") {
  // TP degrees 1, 2, 4 (below 8: each pool leaves the other a GPU). Count per (p, d): the x, y >= 1
  // with x p + y d = 8: (1,1) 7, (1,2) 3, (1,4) 1, (2,1) 3, (2,2) 3, (2,4) 1, (4,1) 1, (4,2) 1,
  // (4,4) 1: 21.
  const std::vector<int> gpus{0, 1, 2, 3, 4, 5, 6, 7};
  auto pow2 = [](int t) { return (t & (t - 1)) == 0 ? std::string() : std::string("not a power of two"); };
  const std::vector<ConfigSpec> all = xpyd_splits(gpus, true, pow2);
  CHECK(all.size() == 21);
  std::set<std::string> names;
  for (const auto& c : all) {
    REQUIRE(c.disaggregation);
    const auto& d = *c.disaggregation;
    CHECK(d.prefill.instances.size() * std::size_t(d.prefill.tp) + d.decode.instances.size() * std::size_t(d.decode.tp) == 8);
    names.insert(c.name);
  }
  CHECK(names.size() == all.size());
  CHECK(names.count("2P6D"));
  CHECK(names.count("1P3D TP=2"));
  // Fewer GPUs allowed: every x p + y d <= 8 as well (2 GPUs at least: 1P1D).
  CHECK(xpyd_splits(gpus, false, pow2).size() > all.size());
  CHECK(xpyd_splits({0}, false, pow2).empty());
}

TEST_CASE("the Pareto frontier keeps the points no other point beats on both axes") {
  // (per GPU, per user): d (12, 1), a (10, 5), b (8, 8) are the frontier; c (7, 6) is beaten by b.
  const std::vector<ParetoPoint> points{{"a", {}, 10, 5, 8}, {"b", {}, 8, 8, 8}, {"c", {}, 7, 6, 8}, {"d", {}, 12, 1, 8}};
  std::vector<std::string> front;
  for (const auto& p : pareto_frontier(points)) front.push_back(p.config);
  CHECK(front == std::vector<std::string>{"d", "a", "b"});
}

TEST_CASE("a mixed split's TP=2 group lands on an NVLink pair of the design exercise's box") {
  const PlatformDesc platform = load_platform_file(ROOT + "/platforms/4gpu_nv12_sys.xml");
  Topology topo(platform, {}, "");
  CollectiveModel cm(topo, {}, nullptr);
  // 6,144-token prefill and batch-1 decode all-reduces of Llama-3.1-8B (d = 4096, 2 bytes).
  const Placement p = place_groups(cm, {1, 2, 1}, 6144 * 4096 * 2.0, 4096 * 2.0);
  REQUIRE(p.layout.size() == 3);
  CHECK(p.exact);
  const auto pair = std::find_if(p.layout.begin(), p.layout.end(), [](const auto& g) { return g.size() == 2; });
  REQUIRE(pair != p.layout.end());
  CHECK((*pair == std::vector<int>{0, 1} || *pair == std::vector<int>{2, 3}));
}

TEST_CASE("placement is exact while its layouts and groups are few, greedy beyond (two DGX H100 nodes)") {
  const PlatformDesc platform = load_platform_file(ROOT + "/platforms/2x_dgx_h100_ib.xml");
  Topology topo(platform, {}, "");
  CollectiveModel cm(topo, {}, nullptr);
  const double prefill = 2048 * 8192 * 2.0, decode = 8192 * 2.0;
  // Four groups of 4 of 16 GPUs: 16! / (4!^4 4!) = 2,627,625 layouts, which the exact search took minutes over; two groups of
  // 8: 6,435 layouts but C(16, 8) = 12,870 groups to cost. Both greedy, and said; no group crosses the nodes.
  for (const std::vector<int>& sizes : {std::vector<int>{4, 4, 4, 4}, std::vector<int>{8, 8}}) {
    const Placement p = place_groups(cm, sizes, prefill, decode);
    CHECK_FALSE(p.exact);
    CHECK(p.reason.rfind("greedy (heuristic: more than 20000 layouts or 2000 groups to try) search placed ", 0) == 0);
    REQUIRE(p.layout.size() == sizes.size());
    for (const auto& g : p.layout) CHECK(g.back() - g.front() < 8);
  }
  // Two groups of 2 on 16 GPUs: 16! / (12! 2!^2 2!) = 10,920 layouts of C(16, 2) = 120 groups: exact, each an NVSwitch pair.
  const Placement pairs = place_groups(cm, {2, 2}, prefill, decode);
  CHECK(pairs.exact);
  for (const auto& g : pairs.layout) CHECK(g.back() - g.front() < 8);
}
