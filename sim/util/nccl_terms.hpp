// NCCL's collectives, protocols and algorithms as tpsim names them: shared by the fitter
// (calibrate/fit), tpsim-calibrate's log writer, the calibration reader, the step generator and
// the collective model.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpsim {

// The collectives nccl-tests measures; the simulator generates all_reduce, all_gather,
// reduce_scatter and send_recv (pipeline stages).
enum class CollectiveOp { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, send_recv, gather, scatter };
// Send/receive and all-to-all: pairwise sends, in flight together, that wait on no neighbour's step.
constexpr bool is_pairwise(CollectiveOp op) { return op == CollectiveOp::send_recv || op == CollectiveOp::all_to_all; }
// The ops `tpsim collective` sweeps (and `tpsim fit` compares with its platform's model).
constexpr bool is_swept(CollectiveOp op) {
  return op == CollectiveOp::all_reduce || op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter ||
         op == CollectiveOp::all_to_all;
}
// The ops that reduce (their cost has NCCL's arithmetic on the datatype in it).
constexpr bool reduces(CollectiveOp op) {
  return op == CollectiveOp::all_reduce || op == CollectiveOp::reduce_scatter || op == CollectiveOp::reduce;
}
// Bytes per element of an nccl-tests datatype as its rows print it (int8, uint8, char, f8e4m3 and
// f8e5m2 1; half, float16 and bfloat16 2; float, float32, int32, uint32 and int 4; double, float64,
// int64 and uint64 8); nullopt for a name nccl-tests does not print.
std::optional<int> nccl_type_bytes(std::string_view type);
// Those names, for messages.
const std::vector<std::string>& nccl_type_names();
// The datatypes NCCL reduces at its links' pace (float, half, bfloat16): the pace tpsim models.
bool reduced_at_link_pace(std::string_view type);
// An op that reduces (reduces) in a datatype NCCL reduces slower than that pace: what a run must say.
inline bool reduces_below_link_pace(CollectiveOp op, std::string_view type) { return reduces(op) && !reduced_at_link_pace(type); }
// The largest relative error (fitted / measured - 1) a fit may report and a calibration file may
// carry: beyond it the line does not describe the log.
constexpr double MAX_FIT_RELATIVE_ERROR = 100;

constexpr std::array<CollectiveOp, 9> ALL_COLLECTIVE_OPS{
    CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter,
    CollectiveOp::all_to_all,   CollectiveOp::broadcast,  CollectiveOp::reduce,
    CollectiveOp::send_recv,  CollectiveOp::gather,     CollectiveOp::scatter};
// "all_reduce", "all_gather", ...: the nccl-tests binary name without `_perf`.
const char* collective_op_name(CollectiveOp op);
// Bus bandwidth over algorithm bandwidth, as nccl-tests computes it (doc/PERFORMANCE.md):
// 2(N-1)/N for all_reduce; (N-1)/N for all_gather, reduce_scatter, alltoall, gather, scatter;
// 1 for broadcast, reduce, send_recv.
double bus_factor(CollectiveOp op, int nranks);
// True when bus_factor does not depend on the rank count (broadcast, reduce, send_recv).
bool bus_factor_is_constant(CollectiveOp op);

enum class Protocol { LL = 0, LL128 = 1, Simple = 2 };
constexpr std::array<Protocol, 3> ALL_PROTOCOLS{Protocol::LL, Protocol::LL128, Protocol::Simple};
const char* protocol_name(Protocol p);

// direct (2 ranks), ring, tree (all-reduce across nodes), NVLS (NVSwitch multicast), NVLS-tree
// (NCCL's NVLS_TREE: NVLS inside each node, a tree across nodes).
enum class Algorithm { direct, ring, tree, nvls, nvls_tree };
constexpr std::array<Algorithm, 5> ALL_ALGORITHMS{Algorithm::direct, Algorithm::ring, Algorithm::tree, Algorithm::nvls,
                                                  Algorithm::nvls_tree};
// NVLS or NVLS-tree: NVSwitch multicast, Simple only, S per rank through the switch.
constexpr bool is_nvls(Algorithm a) { return a == Algorithm::nvls || a == Algorithm::nvls_tree; }
const char* algorithm_name(Algorithm a);

// A NCCL release as logs print it ("2.8.3", "2.8.3+cuda11.1") or a user gives it ("2.8"):
// {major, minor}; nullopt for anything else.
std::optional<std::array<int, 2>> nccl_release(std::string_view version);
// One thread driving several GPUs (nccl-tests -g N): NCCL before 2.9 launched their kernels as one
// group (NCCL_LAUNCH_MODE=GROUP, its default then: src/init.cc; one cooperative multi-device
// launch where the GPUs support it), 2.9.6 and later one after the other (PARALLEL). False for
// an unknown version: a current NCCL.
bool nccl_group_launch(std::string_view version);
// Whether the release is older than major.minor; false for an unknown version (a current NCCL).
bool nccl_before(std::string_view version, int major, int minor);
// A Simple tree's chunk shrinks at medium sizes before NCCL 2.20 (enqueue.cc: "Optimize chunkSize /
// nSteps", present from 2.4 to 2.19, gone in 2.20.3); from 2.20 it is one step at every size.
bool nccl_tree_chunks_shrink(std::string_view version);
// The NCCL release that brought an algorithm or LL128 (NCCL's src/ at the release commits: 2.3.7 has no
// tree, 2.4.2 has it; 2.4.8 has no LL128, 2.5.6 has it; 2.16.5 has no NCCL_ALGO_NVLS, 2.17.1 has it
// and no NCCL_ALGO_NVLS_TREE, 2.18.1 has both). Direct and ring: every release.
constexpr std::array<int, 2> NCCL_LL128_RELEASE{2, 5};
std::array<int, 2> nccl_release_of(Algorithm a);
// Whether the release offers what came with `release`; true for an unknown version (a current NCCL).
bool nccl_offers(std::string_view version, std::array<int, 2> release);
// The newest NCCL release tpsim has read: NVIDIA/nccl at 2.30.7 (makefiles/version.mk of the source it
// follows). A later one is simulated as that one, and a note says so.
constexpr std::array<int, 2> NCCL_NEWEST_READ{2, 30};
bool nccl_newer_than_read(std::string_view version);

}  // namespace tpsim
