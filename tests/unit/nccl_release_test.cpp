// A given NCCL release runs only the algorithms and protocols it has: trees from 2.4, LL128 from 2.5,
// NVLS from 2.17, NVLS-tree from 2.18 (NCCL's src/ at the release commits). What the GPUs and links
// allow but the release lacks is withheld and named in a note. No engine.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "config/platform_file.hpp"
#include "model/collective_model.hpp"
#include "util/nccl_terms.hpp"

using namespace tpsim;

namespace {

const std::string ROOT = TPSIM_SOURCE_DIR;
constexpr double MiB = 1024.0 * 1024.0;

std::vector<int> first(int n) {
  std::vector<int> gpus(n);
  for (int g = 0; g < n; ++g) gpus[g] = g;
  return gpus;
}

CollectiveModel model_of(const Topology& topo, const std::string& nccl_version) {
  CollectiveSpec spec;
  spec.nccl_version = nccl_version;
  return CollectiveModel(topo, spec, nullptr);
}

// The note a release that lacks `what` adds (CollectiveModel::group_notes).
std::vector<std::string> predates(const std::string& version, const std::string& what) {
  return {"NCCL " + version + " predates " + what + ", which these GPUs and links would run: simulated without, as that release ran"};
}

}  // namespace

TEST_CASE("the NCCL release that brought each algorithm and LL128; an unknown version offers all") {
  CHECK(nccl_offers("2.3.7", nccl_release_of(Algorithm::ring)));
  CHECK_FALSE(nccl_offers("2.3.7", nccl_release_of(Algorithm::tree)));
  CHECK(nccl_offers("2.4.2", nccl_release_of(Algorithm::tree)));
  CHECK_FALSE(nccl_offers("2.4.8", NCCL_LL128_RELEASE));
  CHECK(nccl_offers("2.5.6", NCCL_LL128_RELEASE));
  CHECK_FALSE(nccl_offers("2.16.5+cuda12.0", nccl_release_of(Algorithm::nvls)));
  CHECK(nccl_offers("2.17.1", nccl_release_of(Algorithm::nvls)));
  CHECK_FALSE(nccl_offers("2.17.1", nccl_release_of(Algorithm::nvls_tree)));
  CHECK(nccl_offers("2.18", nccl_release_of(Algorithm::nvls_tree)));
  CHECK(nccl_offers("", nccl_release_of(Algorithm::nvls_tree)));
  CHECK(nccl_offers("unknown", NCCL_LL128_RELEASE));
}

TEST_CASE("a release newer than the newest tpsim has read (2.30) runs as 2.30, and a note says so") {
  CHECK_FALSE(nccl_newer_than_read("2.30.7"));
  CHECK_FALSE(nccl_newer_than_read(""));
  CHECK(nccl_newer_than_read("2.31.1"));
  CHECK(nccl_newer_than_read("3.0"));
  const Topology h100(load_platform_file(ROOT + "/platforms/dgx_h100.xml"), {}, "");
  CHECK(model_of(h100, "2.31").group_notes(CollectiveOp::all_reduce, first(8)) ==
        std::vector<std::string>{"NCCL 2.31 is newer than the releases tpsim has read (to 2.30): simulated as 2.30 behaves"});
  CHECK(model_of(h100, "2.30.4").group_notes(CollectiveOp::all_reduce, first(8)).empty());
}

TEST_CASE("NCCL 2.16 on 8 H100s runs no NVLS, 2.4 on 8 A100s no LL128, and each says so") {
  const Topology h100(load_platform_file(ROOT + "/platforms/dgx_h100.xml"), {}, "");
  // 256 MiB on 8 ranks: NVLS from 2.17 (NVSwitch multicast), a ring before it.
  CHECK(model_of(h100, "2.17.1").plan(CollectiveOp::all_reduce, 256 * MiB, first(8)).algorithm == Algorithm::nvls);
  const CollectiveModel old_h100 = model_of(h100, "2.16.5");
  CHECK(old_h100.plan(CollectiveOp::all_reduce, 256 * MiB, first(8)).algorithm == Algorithm::ring);
  CHECK(old_h100.group_notes(CollectiveOp::all_reduce, first(8)) == predates("2.16.5", "NVLS (NCCL 2.17)"));
  // 4 MiB on 8 A100 ranks: LL128 from 2.5; NCCL 2.4 had LL and Simple only.
  const Topology a100(load_platform_file(ROOT + "/platforms/dgx_a100.xml"), {}, "");
  CHECK(model_of(a100, "2.5.6").plan(CollectiveOp::all_reduce, 4 * MiB, first(8)).protocol == Protocol::LL128);
  const CollectiveModel old_a100 = model_of(a100, "2.4.8");
  CHECK(old_a100.plan(CollectiveOp::all_reduce, 4 * MiB, first(8)).protocol == Protocol::Simple);
  // Each with the one-process A100 lean of the held-out sweeps (model_test), after the release's note.
  const auto old_notes = old_a100.group_notes(CollectiveOp::all_reduce, first(8));
  REQUIRE(old_notes.size() == 2);
  CHECK(old_notes[0] == predates("2.4.8", "LL128 (NCCL 2.5)")[0]);
  CHECK(old_notes[1].rfind("on A100-SXM4-80GB NVLink, one process per GPU", 0) == 0);
  const auto current = model_of(a100, "").group_notes(CollectiveOp::all_reduce, first(8));
  REQUIRE(current.size() == 1);
  CHECK(current[0] == old_notes[1]);
}

TEST_CASE("before NCCL 2.4 an all-reduce across nodes runs rings, not a tree") {
  const Topology cluster(load_platform_file(ROOT + "/platforms/2x_dgx_h100_ib.xml"), {}, "");
  CHECK(model_of(cluster, "2.4.2").plan(CollectiveOp::all_reduce, 64 * 1024.0, first(16)).algorithm == Algorithm::tree);
  const CollectiveModel old = model_of(cluster, "2.3.7");
  CHECK(old.plan(CollectiveOp::all_reduce, 64 * 1024.0, first(16)).algorithm == Algorithm::ring);
  const auto notes = old.group_notes(CollectiveOp::all_reduce, first(16));
  REQUIRE_FALSE(notes.empty());
  CHECK(notes.front() == predates("2.3.7", "NVLS-tree (NCCL 2.18), LL128 (NCCL 2.5), tree (NCCL 2.4)").front());
}
