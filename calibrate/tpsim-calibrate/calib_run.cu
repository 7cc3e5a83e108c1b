// One calibration run, in order: check the devices, describe the machine (topo.txt,
// system.txt), NCCL sweeps with the default route, the same with P2P disabled (in a child
// process: NCCL reads NCCL_P2P_DISABLE once per process), then GEMM, HBM and launch
// overhead on the first selected GPU, and last manifest.yaml.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "tpsim-calibrate/calib_files.hpp"
#include "tpsim-calibrate/calib_measure.hpp"
#include "tpsim-calibrate/calib_run.hpp"
#include "tpsim-calibrate/cuda_check.hpp"
#include "tpsim-calibrate/calib_nccl_log.hpp"

extern char** environ;

namespace tpsim::calib {
namespace {

const char* const FRAGMENT = ".p2p-off-manifest.part";

std::string version_string(int code) {  // CUDA: 13000 -> "13.0"
  return std::to_string(code / 1000) + "." + std::to_string(code % 1000 / 10);
}

std::vector<int> visible_gpus(const Options& opt) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess)
    throw NoDeviceError(std::string("no CUDA device visible (cudaGetDeviceCount: ") + cudaGetErrorString(e) + ")");
  if (count <= 0) throw NoDeviceError("no CUDA device visible (cudaGetDeviceCount: 0 devices)");
  if (opt.gpus.empty()) {
    std::vector<int> all;
    for (int d = 0; d < count; ++d) all.push_back(d);
    return all;
  }
  for (const int g : opt.gpus)
    if (g >= count)
      throw UsageError("--gpus: GPU " + std::to_string(g) + " is not visible; CUDA sees " + std::to_string(count) +
                       " device(s), numbered 0-" + std::to_string(count - 1));
  return opt.gpus;
}

// Pair classes from `nvidia-smi topo -m`, matched to CUDA ordinals by PCI bus id; without
// nvidia-smi, from CUDA's P2P attributes. Writes topo.txt when `write_topo`.
struct PairClasses {
  std::map<std::pair<int, int>, std::string> cls;
  std::string source;
};

PairClasses classify_pairs(const std::vector<int>& gpus, const std::string& out_dir, bool write_topo, Manifest& manifest) {
  PairClasses pc;
  const std::optional<std::string> smi = find_in_path("nvidia-smi");
  std::optional<std::string> topo;
  if (smi) topo = run_command("'" + *smi + "' topo -m");
  if (write_topo) {
    if (topo) {
      write_text_file(out_dir + "/topo.txt", *topo);
      manifest.written("topo.txt", "nvidia-smi topo -m, verbatim");
    } else {
      manifest.skipped("topo.txt", smi ? "nvidia-smi topo -m failed" : "nvidia-smi is not on PATH");
    }
  }
  if (topo && gpus.size() > 1) {
    try {
      const TopoMatrix matrix = parse_topo_matrix(*topo);
      const auto ids = parse_bus_id_query(run_command("'" + *smi + "' --query-gpu=index,pci.bus_id --format=csv,noheader").value_or(""));
      std::map<int, int> smi_index;  // CUDA ordinal -> nvidia-smi index
      for (const int g : gpus) {
        char bus[32] = {};
        CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, g));
        for (const auto& [index, id] : ids)
          if (id == normalize_bus_id(bus)) smi_index[g] = index;
      }
      bool complete = smi_index.size() == gpus.size();
      for (size_t i = 0; complete && i < gpus.size(); ++i)
        for (size_t j = i + 1; complete && j < gpus.size(); ++j) {
          const std::string* c = matrix.cell(smi_index[gpus[i]], smi_index[gpus[j]]);
          if (!c) complete = false;
          else pc.cls[{gpus[i], gpus[j]}] = *c;
        }
      if (complete) {
        pc.source = "nvidia-smi topo -m";
        return pc;
      }
    } catch (const RunError&) {
      // fall through to CUDA's view
    }
    manifest.note("nvidia-smi topo -m could not be matched to the CUDA devices; pair classes come from CUDA P2P attributes");
  }
  pc.cls.clear();
  pc.source = "CUDA P2P attributes";
  for (size_t i = 0; i < gpus.size(); ++i)
    for (size_t j = i + 1; j < gpus.size(); ++j) {
      int access = 0, rank = 0;
      CUDA_CHECK(cudaDeviceGetP2PAttribute(&access, cudaDevP2PAttrAccessSupported, gpus[i], gpus[j]));
      if (access) CUDA_CHECK(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, gpus[i], gpus[j]));
      pc.cls[{gpus[i], gpus[j]}] = access ? "P2P-rank" + std::to_string(rank) : "no-P2P";
    }
  return pc;
}

std::vector<NcclSweepSet> sweep_sets(const std::vector<int>& gpus, const PairClasses& pc, Manifest& manifest) {
  std::vector<NcclSweepSet> sets;
  const auto choices = representative_pairs(gpus, [&](int a, int b) { return pc.cls.at({a, b}); });
  std::string classes;
  for (const PairChoice& c : choices) {
    classes += (classes.empty() ? "" : ", ") + c.pair_class;
    sets.push_back({{c.a, c.b}, "pair class " + c.pair_class + " (" + pc.source + "; " + std::to_string(c.pairs) +
                                    " pair(s) of this class among the selected GPUs)"});
  }
  if (gpus.size() > 2)
    sets.push_back({gpus, "full set of " + std::to_string(gpus.size()) + " GPUs (pair classes present: " + classes + ")"});
  else
    manifest.note("full-set NCCL sweep omitted: the two selected GPUs are the pair already measured");
  return sets;
}

// Runs this program again with NCCL_P2P_DISABLE=1 and the hidden child flag; returns its
// exit status (negative: killed by that signal).
int spawn_p2p_off_child(const Options& opt) {
  std::vector<std::string> args = opt.argv;
  args.push_back("--internal-p2p-off-child");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = {"NCCL_P2P_DISABLE=1"};
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("NCCL_P2P_DISABLE=", 0) != 0) env_strings.emplace_back(*e);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  std::cout.flush();
  if (const int err = posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), envp.data()); err != 0)
    throw RunError(std::string("posix_spawn of the P2P-disabled sweep failed: ") + std::strerror(err));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw RunError(std::string("waitpid failed: ") + std::strerror(errno));
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

void say(const std::string& what) { std::cout << TOOL_NAME << ": " << what << std::endl; }

}  // namespace

std::string device_name(int device) {
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop.name;
}

std::string describe_system(const std::vector<int>& gpus) {
  int driver = 0, runtime = 0, cublas_major = 0, cublas_minor = 0, cublas_patch = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  CUBLAS_CHECK(cublasGetProperty(MAJOR_VERSION, &cublas_major));
  CUBLAS_CHECK(cublasGetProperty(MINOR_VERSION, &cublas_minor));
  CUBLAS_CHECK(cublasGetProperty(PATCH_LEVEL, &cublas_patch));
  std::string s;
  s += std::string(TOOL_NAME) + " " + TOOL_VERSION + "\n";
  s += "date_utc: " + utc_now() + "\n";
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  s += std::string("host: ") + host + "\n";
  s += "cuda_driver_api: " + version_string(driver) + " (cudaDriverGetVersion " + std::to_string(driver) + ")\n";
  s += "cuda_runtime: " + version_string(runtime) + " (cudaRuntimeGetVersion " + std::to_string(runtime) + ")\n";
  s += "nccl: " + nccl_library_version() + "\n";
  s += "cublas: " + std::to_string(cublas_major) + "." + std::to_string(cublas_minor) + "." + std::to_string(cublas_patch) + "\n";
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL", "NCCL_ALGO",
                           "NCCL_PROTO", "NCCL_NVLS_ENABLE"})
    if (const char* v = std::getenv(name)) s += std::string("env ") + name + "=" + v + "\n";
  for (const int g : gpus) {
    cudaDeviceProp p{};
    CUDA_CHECK(cudaGetDeviceProperties(&p, g));
    char bus[32] = {};
    CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, g));
    int sm_clock_khz = 0, mem_clock_khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sm_clock_khz, cudaDevAttrClockRate, g));
    CUDA_CHECK(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, g));
    s += "gpu " + std::to_string(g) + ": " + p.name + ", bus " + bus + ", compute capability " +
         std::to_string(p.major) + "." + std::to_string(p.minor) + ", " + std::to_string(p.multiProcessorCount) +
         " SMs, " + std::to_string(p.totalGlobalMem >> 20) + " MiB, L2 " + std::to_string(p.l2CacheSize >> 10) +
         " KiB, memory bus " + std::to_string(p.memoryBusWidth) + " bit, max SM clock " +
         std::to_string(sm_clock_khz / 1000) + " MHz, max memory clock " + std::to_string(mem_clock_khz / 1000) + " MHz\n";
  }
  return s;
}

int run_calibration(const Options& opt) {
  if (opt.p2p_off_child) setenv("NCCL_P2P_DISABLE", "1", 1);
  const ModelShape model = opt.model_file.empty() ? llama31_8b() : load_model_card(opt.model_file);
  const std::vector<int> gpus = visible_gpus(opt);
  const std::string out = opt.out_dir;
  std::filesystem::create_directories(out);
  const std::string fragment = out + "/" + FRAGMENT;

  if (opt.p2p_off_child) {
    Manifest child, unused;  // notes about classes and sets are the parent's to make
    child.mirror_to(fragment);
    const PairClasses pc = classify_pairs(gpus, out, false, unused);
    run_nccl_sweeps(opt, sweep_sets(gpus, pc, unused), true, out, child);
    return 0;
  }

  Manifest manifest;
  std::string command;
  for (const std::string& a : opt.argv) command += (command.empty() ? "" : " ") + a;
  const auto write_manifest = [&] {
    manifest.written("manifest.yaml", "this file");
    write_text_file(out + "/manifest.yaml",
                    manifest.to_yaml({{"tool", std::string(TOOL_NAME) + " " + TOOL_VERSION},
                                      {"command", command},
                                      {"date_utc", utc_now()},
                                      {"gpus", gpu_set_label(gpus)},
                                      {"model", model.name},
                                      {"iters", std::to_string(opt.iters)},
                                      {"warmup", std::to_string(opt.warmup)}}));
  };
  int child_status = 0;
  try {
    say("GPUs " + gpu_set_label(gpus) + ", writing to " + out);
    std::string system = describe_system(gpus);
    if (const auto smi = find_in_path("nvidia-smi")) {
      if (const auto q = run_command("'" + *smi + "' --query-gpu=index,name,pci.bus_id,driver_version,memory.total,"
                                     "clocks.max.sm,clocks.max.mem,power.limit,pcie.link.gen.max,pcie.link.width.max "
                                     "--format=csv"))
        system += "\n--- nvidia-smi --query-gpu ---\n" + *q;
      if (const auto q = run_command("'" + *smi + "' -q")) system += "\n--- nvidia-smi -q (essentials) ---\n" + nvidia_smi_q_essentials(*q);
    } else {
      system += "\nnvidia-smi: not on PATH (driver version and clocks from nvidia-smi not recorded)\n";
    }
    write_text_file(out + "/system.txt", system);
    manifest.written("system.txt", "driver, CUDA runtime, NCCL and cuBLAS versions, device properties, nvidia-smi essentials");
    const PairClasses pc = classify_pairs(gpus, out, true, manifest);

    if (gpus.size() < 2) {
      manifest.skipped("nccl sweeps", "one GPU: no multi-rank sweep");
    } else {
      const std::vector<NcclSweepSet> sets = sweep_sets(gpus, pc, manifest);
      say("NCCL sweeps, default route");
      run_nccl_sweeps(opt, sets, false, out, manifest);
      if (!opt.p2p_off_sweep) {
        manifest.skipped("nccl sweeps with P2P disabled", "--no-p2p-off given");
      } else {
        say("NCCL sweeps, P2P disabled (child process)");
        std::filesystem::remove(fragment);
        child_status = spawn_p2p_off_child(opt);
        if (const auto text = read_text_file(fragment)) manifest.merge_fragment(*text);
        std::filesystem::remove(fragment);
        if (child_status != 0)
          manifest.skipped("nccl sweeps with P2P disabled (rest)",
                           "the child process " + std::string(child_status > 0 ? "exited with status " : "was killed by signal ") +
                               std::to_string(std::abs(child_status)) + "; the logs it completed are listed above");
      }
    }

    const int dev = gpus.front();
    say("GEMM sweep on GPU " + std::to_string(dev));
    const GemmPlan plan = plan_gemm_shapes(model, {1, 2, 4, 8}, gemm_token_counts(opt.quick));
    const std::vector<GemmResult> gemm = run_gemm_sweep(dev, plan, opt, manifest);
    if (!gemm.empty()) {
      write_text_file(out + "/gemm.csv", format_gemm_csv(device_name(dev), gemm));
      manifest.written("gemm.csv", "bf16 cuBLAS GEMM, " + model.name + " shapes at TP 1, 2, 4, 8, GPU " + std::to_string(dev));
    }
    say("decode and prefill steps of " + model.name + " at TP=1 on GPU " + std::to_string(dev));
    const std::vector<StepResult> steps = run_step_proxy(dev, model, opt, manifest);
    if (!steps.empty()) {
      write_text_file(out + "/step.csv", format_step_csv(steps));
      manifest.written("step.csv", "TP=1 decode and prefill steps of " + model.name + " as GEMM chains with KV-cache reads, GPU " +
                                       std::to_string(dev));
    }
    say("HBM copy bandwidth and launch overhead on GPU " + std::to_string(dev));
    const std::vector<HbmResult> hbm = run_hbm_sweep(dev, opt, manifest);
    if (!hbm.empty()) {
      write_text_file(out + "/hbm.csv", format_hbm_csv(device_name(dev), hbm));
      manifest.written("hbm.csv", "device-to-device copy bandwidth, GPU " + std::to_string(dev));
    }
    write_text_file(out + "/launch.csv", format_launch_csv(run_launch_overhead(dev, opt)));
    manifest.written("launch.csv", "empty-kernel and CUDA-graph launch overhead, GPU " + std::to_string(dev));
  } catch (const std::exception& e) {
    // Keep the record of what was written before the failure; main prints the error.
    manifest.skipped("the rest of the run", std::string("stopped by an error: ") + e.what());
    try {
      write_manifest();
    } catch (const std::exception&) {
    }
    throw;
  }
  write_manifest();
  say("done; see " + out + "/manifest.yaml");
  if (child_status != 0)
    throw RunError("the NCCL sweep with P2P disabled failed (see its error above); the other parts were written");
  return 0;
}

}  // namespace tpsim::calib
