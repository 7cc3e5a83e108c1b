// NCCL sweeps in one process: ncclCommInitAll over a GPU set, one stream per GPU, every
// collective launched for all ranks inside ncclGroupStart/End.
//
// Timing: the iterations of one point are enqueued back to back (after the discarded
// warm-up), with a CUDA event on every rank's stream between two iterations. Iteration i
// takes max over ranks of elapsed(event_i, event_i+1): the time from one completion to the
// next on the slowest rank, which is what nccl-tests' average measures, per iteration.
// The file reports the median; the p99 goes in the trailing comment table.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "tpsim-calibrate/calib_files.hpp"
#include "tpsim-calibrate/calib_measure.hpp"
#include "tpsim-calibrate/calib_stats.hpp"
#include "tpsim-calibrate/cuda_check.hpp"
#include "tpsim-calibrate/calib_nccl_log.hpp"

namespace tpsim::calib {
namespace {

std::string mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// Communicators, streams, buffers and events of one GPU set; released on scope exit.
class NcclGroup {
public:
  explicit NcclGroup(const std::vector<int>& devs) : devs_(devs), comms_(devs.size(), nullptr) {
    NCCL_CHECK(ncclCommInitAll(comms_.data(), static_cast<int>(devs_.size()), devs_.data()));
    for (const int d : devs_) {
      CUDA_CHECK(cudaSetDevice(d));
      cudaStream_t s = nullptr;
      CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      streams_.push_back(s);
    }
  }
  ~NcclGroup() { release(false); }
  // Frees everything; communicators are finalized together (in one group) before they are
  // destroyed, as NCCL's examples do for communicators of one process.
  void close() { release(true); }
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

  int nranks() const { return static_cast<int>(devs_.size()); }

  // Smallest free memory over the set's devices, minus the reserve.
  uint64_t usable_bytes() const {
    uint64_t usable = UINT64_MAX;
    for (const int d : devs_) {
      CUDA_CHECK(cudaSetDevice(d));
      size_t free_b = 0, total_b = 0;
      CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
      const size_t reserve = memory_reserve_bytes(total_b);
      usable = std::min<uint64_t>(usable, free_b > reserve ? free_b - reserve : 0);
    }
    return usable;
  }

  void allocate(uint64_t buffer_bytes, int events_per_rank) {
    for (size_t r = 0; r < devs_.size(); ++r) {
      CUDA_CHECK(cudaSetDevice(devs_[r]));
      void* p = nullptr;
      CUDA_CHECK(cudaMalloc(&p, buffer_bytes));
      send_.push_back(p);
      CUDA_CHECK(cudaMalloc(&p, buffer_bytes));
      recv_.push_back(p);
      CUDA_CHECK(cudaMemset(send_[r], 0, buffer_bytes));
      CUDA_CHECK(cudaMemset(recv_[r], 0, buffer_bytes));
      events_.emplace_back();
      for (int i = 0; i < events_per_rank; ++i) {
        cudaEvent_t e = nullptr;
        CUDA_CHECK(cudaEventCreate(&e));
        events_.back().push_back(e);
      }
    }
  }

  // One collective on every rank; bytes is the whole buffer (see calib_nccl_log.hpp).
  void launch(CollectiveOp c, uint64_t bytes, bool in_place) {
    const size_t n = devs_.size();
    const size_t total = bytes / 4, per_rank = total / n;
    NCCL_CHECK(ncclGroupStart());
    for (size_t r = 0; r < n; ++r) {
      char* send = static_cast<char*>(send_[r]);
      char* recv = static_cast<char*>(recv_[r]);
      switch (c) {
        case CollectiveOp::all_reduce:
          NCCL_CHECK(ncclAllReduce(in_place ? recv : send, recv, total, ncclFloat, ncclSum, comms_[r], streams_[r]));
          break;
        case CollectiveOp::all_gather:
          NCCL_CHECK(ncclAllGather(in_place ? recv + r * per_rank * 4 : send, recv, per_rank, ncclFloat, comms_[r], streams_[r]));
          break;
        case CollectiveOp::reduce_scatter:
          NCCL_CHECK(ncclReduceScatter(send, in_place ? send + r * per_rank * 4 : recv, per_rank, ncclFloat, ncclSum,
                                       comms_[r], streams_[r]));
          break;
        default:
          throw RunError(std::string("internal: tpsim-calibrate does not sweep ") + collective_op_name(c));
      }
    }
    NCCL_CHECK(ncclGroupEnd());
  }

  Summary time(CollectiveOp c, uint64_t bytes, bool in_place, int warmup, int iters) {
    for (int i = 0; i < warmup; ++i) launch(c, bytes, in_place);
    for (int i = 0; i <= iters; ++i) {
      for (size_t r = 0; r < devs_.size(); ++r) {
        CUDA_CHECK(cudaSetDevice(devs_[r]));
        CUDA_CHECK(cudaEventRecord(events_[r][i], streams_[r]));
      }
      if (i < iters) launch(c, bytes, in_place);
    }
    for (cudaStream_t s : streams_) CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<double> samples;
    for (int i = 0; i < iters; ++i) {
      double worst_ms = 0;
      for (size_t r = 0; r < devs_.size(); ++r) {
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, events_[r][i], events_[r][i + 1]));
        worst_ms = std::max(worst_ms, static_cast<double>(ms));
      }
      samples.push_back(worst_ms * 1000.0);
    }
    return summarize(samples);
  }

  std::vector<std::string> device_lines() const {
    char host[256] = "unknown";
    gethostname(host, sizeof host - 1);
    std::vector<std::string> lines;
    for (size_t r = 0; r < devs_.size(); ++r) {
      cudaDeviceProp prop{};
      CUDA_CHECK(cudaGetDeviceProperties(&prop, devs_[r]));
      char buf[512];
      std::snprintf(buf, sizeof buf, "Rank %2zu Group  0 Pid %6d on %10s device %2d [0x%02x] %s", r,
                    static_cast<int>(getpid()), host, devs_[r], prop.pciBusID, prop.name);
      lines.push_back(buf);
    }
    return lines;
  }

private:
  void release(bool checked) {
    if (released_) return;
    released_ = true;
    const auto check = [checked](cudaError_t e, const char* call) { if (checked) check_cuda(e, call); };
    const auto check_n = [checked](ncclResult_t r, const char* call) { if (checked) check_nccl(r, call); };
    for (size_t r = 0; r < streams_.size(); ++r) {
      check(cudaSetDevice(devs_[r]), "cudaSetDevice");
      check(cudaStreamSynchronize(streams_[r]), "cudaStreamSynchronize");
    }
    if (comms_.front()) {
      check_n(ncclGroupStart(), "ncclGroupStart");
      for (ncclComm_t c : comms_) check_n(ncclCommFinalize(c), "ncclCommFinalize");
      check_n(ncclGroupEnd(), "ncclGroupEnd");
      for (ncclComm_t c : comms_) check_n(ncclCommDestroy(c), "ncclCommDestroy");
    }
    for (size_t r = 0; r < devs_.size(); ++r) {
      check(cudaSetDevice(devs_[r]), "cudaSetDevice");
      if (r < events_.size())
        for (cudaEvent_t e : events_[r]) check(cudaEventDestroy(e), "cudaEventDestroy");
      if (r < send_.size()) check(cudaFree(send_[r]), "cudaFree");
      if (r < recv_.size()) check(cudaFree(recv_[r]), "cudaFree");
      if (r < streams_.size()) check(cudaStreamDestroy(streams_[r]), "cudaStreamDestroy");
    }
  }

  bool released_ = false;
  std::vector<int> devs_;
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
  std::vector<void*> send_, recv_;
  std::vector<std::vector<cudaEvent_t>> events_;
};

std::string nccl_environment() {
  std::string env;
  for (const char* name : {"NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL", "NCCL_SHM_DISABLE", "NCCL_ALGO", "NCCL_PROTO",
                           "NCCL_NVLS_ENABLE", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS", "NCCL_BUFFSIZE",
                           "CUDA_VISIBLE_DEVICES"})
    if (const char* v = std::getenv(name)) env += std::string(env.empty() ? "" : " ") + name + "=" + v;
  return env.empty() ? "no NCCL_* tuning variables set" : env;
}

void sweep_set(const Options& opt, const NcclSweepSet& set, bool p2p_off, const std::string& out_dir,
               Manifest& manifest) {
  const std::string route = p2p_off ? "p2p-off" : "p2p";
  const std::string label = gpu_set_label(set.gpus);
  const std::string part = "nccl " + route + " gpus " + label;
  NcclGroup group(set.gpus);
  const int n = group.nranks();

  const std::vector<uint64_t> requested = sweep_sizes(opt.min_bytes, opt.max_bytes, opt.factor);
  const uint64_t usable = group.usable_bytes();
  std::vector<uint64_t> sizes;
  for (const uint64_t s : requested)
    if (2 * s <= usable) sizes.push_back(s);
  if (sizes.empty()) {
    manifest.skipped(part, "not enough free device memory for two " + std::to_string(requested.front()) +
                               "-byte buffers per GPU beside the reserve");
    return;
  }
  std::string cap_note;
  if (sizes.size() < requested.size()) {
    cap_note = "sizes capped at " + std::to_string(sizes.back()) + " B (requested up to " +
               std::to_string(requested.back()) + " B): two buffers of that size per GPU must fit the free memory, " +
               mib(usable) + " usable after the reserve";
    manifest.note(part + ": " + cap_note);
  }
  group.allocate(sizes.back(), opt.iters + 1);

  std::vector<std::string> comments;
  std::string names;
  for (const int g : set.gpus) names += std::string(names.empty() ? "" : ", ") + std::to_string(g);
  comments.push_back("hardware: " + std::to_string(n) + "x " + device_name(set.gpus.front()) + " (CUDA devices " + names +
                     ")");
  comments.push_back("nranks: " + std::to_string(n) + "  nodes: 1  gpus_per_node: " + std::to_string(n));
  comments.push_back("topology: " + set.description);
  comments.push_back("nccl: " + nccl_library_version() + " (library; headers " + std::to_string(NCCL_MAJOR) + "." +
                     std::to_string(NCCL_MINOR) + "." + std::to_string(NCCL_PATCH) + ")");
  comments.push_back(p2p_off ? "route: P2P disabled (NCCL_P2P_DISABLE=1 set before ncclCommInitAll, fresh process)"
                             : "route: NCCL default (P2P allowed)");
  comments.push_back("run: single process, ncclCommInitAll, one stream per GPU, float sum; warmup " +
                     std::to_string(opt.warmup) + " discarded, iters " + std::to_string(opt.iters) +
                     "; time = median over iterations of the per-iteration CUDA-event time (slowest rank)");
  comments.push_back("#wrong: the reduced values are not checked by tpsim-calibrate; the column is always 0");
  comments.push_back("environment: " + nccl_environment());
  if (!cap_note.empty()) comments.push_back(cap_note);

  for (const CollectiveOp c : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter}) {
    std::vector<NcclRow> rows;
    int too_small = 0;
    for (const uint64_t s : sizes) {
      const uint64_t bytes = collective_bytes(c, s, n);
      if (bytes == 0 || (!rows.empty() && rows.back().bytes == bytes)) {
        ++too_small;
        continue;
      }
      const Summary oop = group.time(c, bytes, false, opt.warmup, opt.iters);
      const Summary ip = group.time(c, bytes, true, opt.warmup, opt.iters);
      rows.push_back({bytes, oop.median, oop.p99, ip.median, ip.p99});
    }
    const std::string name = collective_op_name(c);
    if (rows.empty()) {
      manifest.skipped(part + " " + name, "no requested size gives every rank a whole float");
      continue;
    }
    NcclLogInfo info;
    info.collective = c;
    info.nranks = n;
    info.comments = comments;
    if (too_small > 0)
      info.comments.push_back(std::to_string(too_small) + " requested size(s) not measured: " + name +
                              " needs a whole float per rank (sizes are rounded down to a multiple of 4*nranks bytes)");
    info.devices = group.device_lines();
    info.min_bytes = rows.front().bytes;
    info.max_bytes = rows.back().bytes;
    info.factor = opt.factor;
    info.warmup = opt.warmup;
    info.iters = opt.iters;
    const std::string rel = "nccl/" + name + "_gpus" + label + "_" + route + ".log";
    write_text_file(out_dir + "/" + rel, format_nccl_log(info, rows));
    manifest.written(rel, name + ", " + std::to_string(n) + " ranks (GPUs " + names + "), " + set.description + ", " +
                              (p2p_off ? "P2P disabled" : "default route"));
  }
  group.close();
}

}  // namespace

size_t memory_reserve_bytes(size_t total_bytes) { return std::max<size_t>(size_t{512} << 20, total_bytes / 20); }

std::string nccl_library_version() {
  int code = 0;
  NCCL_CHECK(ncclGetVersion(&code));
  return nccl_version_string(code);
}

void run_nccl_sweeps(const Options& opt, const std::vector<NcclSweepSet>& sets, bool p2p_off,
                     const std::string& out_dir, Manifest& manifest) {
  std::filesystem::create_directories(out_dir + "/nccl");
  for (const NcclSweepSet& set : sets) sweep_set(opt, set, p2p_off, out_dir, manifest);
}

}  // namespace tpsim::calib
