// A given NCCL release runs only the algorithms and protocols it has: trees from 2.4, LL128 from 2.5,
// NVLS from 2.17, NVLS-tree from 2.18 (NCCL's src/ at the release commits). What the GPUs and links
// allow but the release lacks is withheld and named in a note; so is a forced algorithm that does not
// apply (below). No engine.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "config/platform_file.hpp"
#include "config/scenario.hpp"
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

// The model of `nccl_version` with `algorithm` forced ("auto": NCCL's choice).
CollectiveModel forcing(const Topology& topo, const std::string& algorithm, const std::string& nccl_version = "") {
  CollectiveSpec spec;
  spec.algorithm = algorithm;
  spec.nccl_version = nccl_version;
  return CollectiveModel(topo, spec, nullptr);
}

CollectiveModel model_of(const Topology& topo, const std::string& nccl_version) { return forcing(topo, "auto", nccl_version); }

// The note a release that lacks `what` adds (CollectiveModel::group_notes).
std::vector<std::string> predates(const std::string& version, const std::string& what) {
  return {"NCCL " + version + " predates " + what + ", which these GPUs and links would run: simulated without, as that release ran"};
}

// The note's first part, up to its reason's parenthesis.
std::string lead(const std::string& algorithm, const std::string& op, int n) {
  return "algorithm " + algorithm + " forced, which does not apply to " + op + " on these " + std::to_string(n) + " GPUs (";
}

bool has_note_starting(const std::vector<std::string>& notes, const std::string& start) {
  for (const auto& n : notes)
    if (n.rfind(start, 0) == 0) return true;
  return false;
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

// A forced algorithm (NCCL_ALGO, a scenario's `algorithm:`) narrows each collective's choice where it
// applies; where it does not (NCCL's tree is all-reduce only, NVLS needs Hopper on NVSwitch, direct is
// tpsim's 2-rank exchange, an all-to-all is point-to-point sends), tpsim runs its own choice and says so
// (CollectiveModel::group_notes). NVLS with LL or LL128 is refused before any run: NCCL has neither.
TEST_CASE("a forced algorithm that does not apply is replaced by tpsim's own choice, and a note says so") {
  const Topology a100(load_platform_file(ROOT + "/platforms/dgx_a100.xml"), {}, "");
  // NVLS on A100: no NVLink SHARP before Hopper; the 4 ranks run a ring.
  const CollectiveModel nvls = forcing(a100, "nvls");
  CHECK(nvls.plan(CollectiveOp::all_reduce, 64 * MiB, first(4)).algorithm == Algorithm::ring);
  const auto nvls_notes = nvls.group_notes(CollectiveOp::all_reduce, first(4));
  CHECK(has_note_starting(nvls_notes, lead("nvls", "all_reduce", 4) + "NVLS needs more than 2 GPUs of Hopper or later"));
  // The tree on an all-gather: NCCL's tree is all-reduce only.
  const CollectiveModel tree = forcing(a100, "tree");
  CHECK(tree.plan(CollectiveOp::all_gather, 64 * MiB, first(4)).algorithm == Algorithm::ring);
  CHECK(tree.group_notes(CollectiveOp::all_gather, first(4)).front() ==
        lead("tree", "all_gather", 4) + "NCCL's tree runs all-reduce only): simulated with ring");
  // ...while an all-reduce runs it, and says nothing of it.
  CHECK(tree.plan(CollectiveOp::all_reduce, 64 * MiB, first(4)).algorithm == Algorithm::tree);
  CHECK_FALSE(has_note_starting(tree.group_notes(CollectiveOp::all_reduce, first(4)), "algorithm tree forced"));
  // direct on 4 ranks: a ring with the same steps.
  const CollectiveModel direct = forcing(a100, "direct");
  CHECK(direct.group_notes(CollectiveOp::all_reduce, first(4)).front() ==
        lead("direct", "all_reduce", 4) + "direct is tpsim's exchange of 2 ranks): simulated with ring");
  CHECK(direct.group_notes(CollectiveOp::all_reduce, first(2)).empty());
  // A ring forced on an all-to-all: its sends to every peer run as they do (direct).
  const CollectiveModel ring = forcing(a100, "ring");
  CHECK(ring.plan(CollectiveOp::all_to_all, 64 * MiB, first(4)).algorithm == Algorithm::direct);
  CHECK(has_note_starting(ring.group_notes(CollectiveOp::all_to_all, first(4)), lead("ring", "alltoall", 4) + "NCCL's all-to-all"));
}

TEST_CASE("NVLS forced on Hopper runs, unless the NCCL release predates it") {
  const Topology h100(load_platform_file(ROOT + "/platforms/dgx_h100.xml"), {}, "");
  CHECK(forcing(h100, "nvls").plan(CollectiveOp::all_reduce, 8 * MiB, first(8)).algorithm == Algorithm::nvls);
  CHECK(forcing(h100, "nvls").group_notes(CollectiveOp::all_reduce, first(8)).empty());
  const CollectiveModel old = forcing(h100, "nvls", "2.16.5");
  CHECK(old.plan(CollectiveOp::all_reduce, 8 * MiB, first(8)).algorithm == Algorithm::ring);
  CHECK(has_note_starting(old.group_notes(CollectiveOp::all_reduce, first(8)),
                          lead("nvls", "all_reduce", 8) + "the NCCL release predates NVLS): simulated with ring"));
}

TEST_CASE("NVLS with LL or LL128 is no pair NCCL runs: refused, with the reason") {
  CHECK(algorithm_protocol_conflict("nvls", "auto").empty());
  CHECK(algorithm_protocol_conflict("nvls", "Simple").empty());
  CHECK(algorithm_protocol_conflict("ring", "LL").empty());
  CHECK(algorithm_protocol_conflict("nvls", "LL128") ==
        "NVLS runs the Simple protocol only (NCCL has no NVLS with LL128 and answers 'No algorithm/protocol available'): "
        "leave the protocol to NCCL (auto) or give Simple");
}
