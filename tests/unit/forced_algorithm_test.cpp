// A forced algorithm (NCCL_ALGO, a scenario's `algorithm:`) narrows each collective's choice where it
// applies; where it does not (NCCL's tree is all-reduce only, NVLS needs Hopper on NVSwitch, direct is
// tpsim's 2-rank exchange, an all-to-all is point-to-point sends), tpsim runs its own choice and says so
// (CollectiveModel::group_notes). NVLS with LL or LL128 is refused before any run: NCCL has neither.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "config/platform_file.hpp"
#include "config/scenario.hpp"
#include "model/collective_model.hpp"

using namespace tpsim;

namespace {

const std::string ROOT = TPSIM_SOURCE_DIR;
constexpr double MiB = 1024.0 * 1024.0;

std::vector<int> first(int n) {
  std::vector<int> gpus(n);
  for (int g = 0; g < n; ++g) gpus[g] = g;
  return gpus;
}

CollectiveModel forcing(const Topology& topo, const std::string& algorithm, const std::string& nccl_version = "") {
  CollectiveSpec spec;
  spec.algorithm = algorithm;
  spec.nccl_version = nccl_version;
  return CollectiveModel(topo, spec, nullptr);
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
