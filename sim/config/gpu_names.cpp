// GPU names: tpsim's row names, the names nvidia-smi prints for them, and the hint for a name the
// table lacks (gpu_catalog.hpp).
#include <algorithm>
#include <cctype>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpu_catalog.hpp"
#include "gpu_catalog_boards.hpp"
#include "util/spelling.hpp"

namespace tpsim {

namespace {

// tpsim name -> what `nvidia-smi --query-gpu=name` prints for it (drivers of 2020 on; older
// drivers print GeForce cards without the "NVIDIA " prefix, which normalising drops anyway).
const std::vector<std::pair<std::string, std::string>>& smi_names() {
  static const std::vector<std::pair<std::string, std::string>> names = [] {
    std::vector<std::pair<std::string, std::string>> n{
        {"A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB"},   {"A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB"},
        {"A100-PCIe-80GB", "NVIDIA A100 80GB PCIe"},   {"H100-SXM5-80GB", "NVIDIA H100 80GB HBM3"},
        {"A100-PCIe-40GB", "NVIDIA A100-PCIE-40GB"},   // Rank lines of xyxxxxx/panoramic's nccl-tests log; PrunaAI results.json
        {"H100-PCIe-80GB", "NVIDIA H100 PCIe"},        {"H100-NVL-94GB", "NVIDIA H100 NVL"},
        {"H200-SXM-141GB", "NVIDIA H200"},             {"B200-SXM-180GB", "NVIDIA B200"},
        {"H20-96GB", "NVIDIA H20"},                    {"GH200-96GB", "NVIDIA GH200 480GB"},
        {"GH200-96GB", "NVIDIA GH200 120GB"},  // CSCS Alps / Isambard: memory.total 97871 MiB, stored file ids 56775069589, 52901019904
        {"V100-SXM2-32GB", "Tesla V100-SXM2-32GB"},
        {"L40S-48GB", "NVIDIA L40S"},                  {"L40-48GB", "NVIDIA L40"},
        {"L4-24GB", "NVIDIA L4"},                      {"A10-24GB", "NVIDIA A10"},
        {"A10G-24GB", "NVIDIA A10G"},                  // AWS g5; `nvidia-smi` table, stored file id 10369262131
        {"V100-PCIe-16GB", "Tesla V100-PCIE-16GB"},    // `nvidia-smi` table, stored file id 66436149009
        {"V100-PCIe-32GB", "Tesla V100-PCIE-32GB"},    // clinfo Device Name (cgl.ucsf.edu ChimeraX ticket 3156); Sheffield's nccl-tests Rank lines
        {"A40-48GB", "NVIDIA A40"},                    {"T4-16GB", "Tesla T4"},
        {"RTXA6000-48GB", "NVIDIA RTX A6000"},         {"RTXA5000-24GB", "NVIDIA RTX A5000"},
        {"RTXA4000-16GB", "NVIDIA RTX A4000"},         // `nvidia-smi --query-gpu` table, stored file id 69565407358
        {"RTX4090-24GB", "NVIDIA GeForce RTX 4090"},   {"RTX2080Ti-11GB", "NVIDIA GeForce RTX 2080 Ti"},
        {"RTX5090-32GB", "NVIDIA GeForce RTX 5090"},
        // Issue 11 rows; where each spelling was seen printed by nvidia-smi or the CUDA device name (the same string):
        {"L20-48GB", "NVIDIA L20"},                      // `nvidia-smi -L`, stored file id 15354673624
        {"A30-24GB", "NVIDIA A30"},                      // `nvidia-smi -L` on Stanford's Sherlock, stored file id 45257212168
        {"A800-SXM4-80GB", "NVIDIA A800-SXM4-80GB"},     // PyTorch collect_env "GPU 0: ...", stored file id 56861703564
        {"A800-PCIe-80GB", "NVIDIA A800 80GB PCIe"},     // device-name check in code, stored file id 45339446182
        {"H800-SXM5-80GB", "NVIDIA H800"},               // sglang-project/sglang#25063 environment ("GPU 0,1,...: NVIDIA H800")
        {"RTX3090-24GB", "NVIDIA GeForce RTX 3090"},     // RunPod GPU type ids (= nvidia-smi names), stored file id 56524155601
        {"RTX6000Ada-48GB", "NVIDIA RTX 6000 Ada Generation"},  // PyTorch collect_env "GPU 0: ...", stored file id 56700046327
        {"RTXPRO6000-WS-96GB", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"},  // MarcoPizeta/flash-next-rtxpro6000-bench HARDWARE.md
        {"RTXPRO6000-Server-96GB", "NVIDIA RTX PRO 6000 Blackwell Server Edition"},   // antirez/ds4#256; stored file id 54916593241
        {"RTXPRO6000-MaxQ-96GB", "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"},  // stored file ids 65770770282, 69671745357
        {"V100-SXM2-16GB", "Tesla V100-SXM2-16GB"},      // `nvidia-smi -L` / --query-gpu, stored file id 71069297093
        {"V100-SXM3-32GB", "Tesla V100-SXM3-32GB"},      // PyTorch collect_env "GPU 0: ...", stored file id 56830323301
        {"P100-SXM2-16GB", "Tesla P100-SXM2-16GB"},      // `nvidia-smi` table, stored file id 29170649839
        {"P100-PCIe-16GB", "Tesla P100-PCIE-16GB"},      // TensorFlow's device list, stored file id 19685928972
        {"P100-PCIe-12GB", "Tesla P100-PCIE-12GB"},      // a PCI id table of device names, stored file id 38073908391
        {"P40-24GB", "Tesla P40"},                       // the same table; a homelab `topo -m` page, stored file id 25111988244
        {"K80-12GB", "Tesla K80"},                       // lattice/quda#669 (its `nvidia-smi topo -m`)
        {"B300-SXM-288GB", "NVIDIA B300 SXM6 AC"},       // `nvidia-smi -L` / nvlink --status, stored file id 63125688786
        {"GB200-185GB", "NVIDIA GB200"},                 // `nvidia-smi` table, stored file id 54650828460
        {"GB300-278GB", "NVIDIA GB300"},                 // `nvidia-smi` table, stored file id 66256874927
        {"RTX5080-16GB", "NVIDIA GeForce RTX 5080"},     // `nvidia-smi` table, stored file id 69765671485
        {"RTX5070Ti-16GB", "NVIDIA GeForce RTX 5070 Ti"},  // `nvidia-smi` table, stored file id 2532591600
        {"RTX5070-12GB", "NVIDIA GeForce RTX 5070"},     // `nvidia-smi` table, stored file id 67263251492
        {"RTX5060Ti-16GB", "NVIDIA GeForce RTX 5060 Ti"},  // `topo -m` capture, stored file id 68859080607
    };
    n.insert(n.end(), more_board_smi_names().begin(), more_board_smi_names().end());
    return n;
  }();
  return names;
}

}  // namespace

std::string normalise_gpu_name(const std::string& name) {
  std::string out;
  for (unsigned char c : name)
    if (std::isalnum(c)) out += char(std::tolower(c));
  for (const char* word : {"nvidia", "tesla", "geforce"})
    for (std::size_t p; (p = out.find(word)) != std::string::npos;) out.erase(p, std::string(word).size());
  return out;
}

double nvlink_link_rate_Bps(const GpuSpec& gpu) {
  if (gpu.nvlink_link_Bps > 0) return gpu.nvlink_link_Bps;
  return gpu.nvlink_generation >= 5 ? 50e9 : gpu.nvlink_generation > 0 ? 25e9 : 0;
}

const GpuSpec* find_gpu_any_name(const std::string& name) {
  if (const GpuSpec* g = find_gpu(name)) return g;
  const std::string key = normalise_gpu_name(name);
  if (key.empty()) return nullptr;
  for (const auto& g : gpu_catalog())
    if (normalise_gpu_name(g.name) == key) return &g;
  for (const auto& [tpsim, smi] : smi_names())
    if (normalise_gpu_name(smi) == key) return find_gpu(tpsim);
  return nullptr;
}

namespace {
// The numbers in a normalised GPU name, in order ("h100sxm580gb": 100, 580): its model and memory.
std::vector<std::string> digit_runs(const std::string& key) {
  std::vector<std::string> runs;
  bool in_run = false;
  for (unsigned char c : key) {
    const bool digit = std::isdigit(c) != 0;
    if (digit && !in_run) runs.emplace_back();
    if (digit) runs.back() += char(c);
    in_run = digit;
  }
  return runs;
}
}  // namespace

std::string gpu_name_hint(const std::string& name) {
  std::vector<std::string> keys, shown, model;  // per name tpsim knows: normalised, as shown, the model it names
  for (const auto& g : gpu_catalog()) {
    keys.push_back(normalise_gpu_name(g.name));
    shown.push_back("'" + g.name + "'");
    model.push_back(g.name);
  }
  for (const auto& [tpsim, smi] : smi_names())
    if (find_gpu(tpsim)) {
      keys.push_back(normalise_gpu_name(smi));
      shown.push_back("'" + tpsim + "' (nvidia-smi: " + smi + ")");
      model.push_back(tpsim);
    }
  // A short name that several models contain ("H100", "RTX2080"): those models, up to six.
  const std::string given = normalise_gpu_name(name);
  std::vector<std::size_t> containing;
  for (std::size_t i = 0; i < keys.size() && given.size() >= 3; ++i)
    if (keys[i].find(given) != std::string::npos &&
        std::none_of(containing.begin(), containing.end(), [&](std::size_t j) { return model[j] == model[i]; }))
      containing.push_back(i);
  if (containing.size() == 1) return "; did you mean " + shown[containing[0]] + "?";
  if (!containing.empty() && containing.size() <= 6) {
    std::vector<std::string> names;
    for (std::size_t i : containing) names.push_back("'" + model[i] + "'");
    return fmt::format("; did you mean one of {}?", fmt::join(names, ", "));
  }
  // The names below must carry the same model numbers as the given one.
  const std::vector<std::string> numbers = digit_runs(given);
  std::vector<std::size_t> same_numbers;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (digit_runs(keys[i]) == numbers) same_numbers.push_back(i);
  // A name with words left out ("RTX Pro 6000 Workstation"): the one model whose name holds all of it, in order.
  auto holds_in_order = [&given](const std::string& key) {
    std::size_t at = 0;
    for (char c : key) at += at < given.size() && given[at] == c;
    return at == given.size();
  };
  std::vector<std::size_t> holding;
  for (std::size_t i : same_numbers)
    if (holds_in_order(keys[i]) && std::none_of(holding.begin(), holding.end(), [&](std::size_t j) { return model[j] == model[i]; }))
      holding.push_back(i);
  if (holding.size() == 1) return "; did you mean " + shown[holding[0]] + "?";
  if (holding.size() > 1 && holding.size() <= 6) {
    std::vector<std::string> names;
    for (std::size_t i : holding) names.push_back("'" + model[i] + "'");
    return fmt::format("; did you mean one of {}?", fmt::join(names, ", "));
  }
  // A misspelt name: at most one edit in four characters. "A800 80GB PCle" is the A800 PCIe, but "Tesla
  // M60" is not the H20, "GTX 1070" not the RTX 5070, and "GB10" (a GPU the table lacks) not the A10, two
  // edits away.
  std::vector<std::string> candidates;
  for (std::size_t i : same_numbers) candidates.push_back(keys[i]);
  const auto near = closest_match(given, candidates);
  if (!near || edit_distance(given, *near) > std::max<std::size_t>(1, given.size() / 4)) return "";
  for (std::size_t i : same_numbers)
    if (keys[i] == *near) return "; did you mean " + shown[i] + "?";
  return "";
}

}  // namespace tpsim
