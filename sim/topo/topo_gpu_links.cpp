// What a GPU brings to an imported platform, from the GPU catalog (sim/config/gpu_catalog.cpp):
// its NVLink and PCIe generations give the link rates.
#include "topo/topo_gpu_links.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>


#include "config/gpu_catalog.hpp"
#include "util/error.hpp"
#include "util/spelling.hpp"

namespace tpsim {
namespace {

double pcie_rate(int generation) {
  switch (generation) {
    case 3: return 12e9;
    case 4: return 24e9;
    default: return 48e9;
  }
}

}  // namespace

GpuLinkSpec gpu_link_spec(const std::string& gpu_model) {
  if (const GpuSpec* gpu = find_gpu_any_name(gpu_model)) {
    GpuLinkSpec spec;
    spec.gpu_model = gpu->name;
    spec.nvlink_generation = gpu->nvlink_generation;
    spec.nvlinks_per_gpu = gpu->nvlinks_per_gpu;
    spec.pcie_generation = gpu->pcie_generation;
    spec.peak_bf16_flops = gpu->bf16_peak_flops;
    spec.p2p = gpu->pcie_p2p;
    spec.nvlink_bw_Bps = nvlink_link_rate_Bps(*gpu);
    spec.pcie_bw_Bps = pcie_rate(gpu->pcie_generation);
    spec.pcie_switch_bw_Bps = 2 * spec.pcie_bw_Bps;
    spec.host_bridge_bw_Bps = 2 * spec.pcie_bw_Bps;
    spec.upi_bw_Bps = 2 * spec.pcie_bw_Bps;
    return spec;
  }
  auto names = gpu_names();
  std::string hint = gpu_name_hint(gpu_model);
  if (hint.empty()) hint = fmt::format("; known models (by these names, or the names nvidia-smi prints for them): {}", fmt::join(names, ", "));
  throw ValueError(fmt::format("unknown GPU model '{}'{}", gpu_model, hint));
}

std::optional<std::string> missing_nvlink_note(const TopoMatrix& m, const std::string& gpu_model) {
  const bool always_nvlink = gpu_model.find("SXM") != std::string::npos || gpu_model.rfind("GB", 0) == 0 || gpu_model.rfind("GH", 0) == 0;
  if (!always_nvlink || m.gpu_count < 2) return std::nullopt;
  for (int a = 0; a < m.gpu_count; ++a)
    for (int b = 0; b < m.gpu_count; ++b)
      if (m.path(a, b).code == PathCode::NV) return std::nullopt;
  return fmt::format("{}: note: no GPU pair is on NVLink, yet {} GPUs are joined by NVLink: if this is `nvidia-smi topo -mp` "
                     "(PCIe paths only), import `nvidia-smi topo -m` instead; imported as the matrix says",
                     m.file, gpu_model);
}

}  // namespace tpsim
