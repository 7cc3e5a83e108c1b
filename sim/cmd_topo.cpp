// `tpsim topo import topo.txt --gpu A100-SXM4-80GB -o platforms/mybox.xml`: nvidia-smi topo -m
// to a SimGrid platform. `tpsim topo show P.xml`: GPUs, links, the path class of every pair,
// and the chapter's decision procedure for this box.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>
#include <map>
#include <set>

#include "cmd_common.hpp"
#include "config/p2p_policy.hpp"
#include "config/platform_file.hpp"
#include "model/domains.hpp"
#include "model/topology.hpp"
#include "report/writers.hpp"
#include "topo/topo_gpu_links.hpp"
#include "topo/topo_matrix.hpp"
#include "topo/topo_pcie_tree.hpp"
#include "topo/topo_platform.hpp"
#include "util/error.hpp"
#include "util/spelling.hpp"
#include "util/text_file.hpp"
#include "util/units.hpp"

namespace tpsim {
namespace {

std::string show(const PlatformDesc& p) {
  Topology topo(p, {}, "");
  const std::string level = p.p2p_level.empty() ? describe_p2p_default(p.cpu_vendor) : p.p2p_level + " (the platform's p2p_level)";
  std::string out = fmt::format("{}: {} GPUs, {} links, CPU vendor {}, NCCL P2P level {}\n\nGPUs:\n", p.file, p.gpus.size(),
                                p.links.size(), p.cpu_vendor.empty() ? "not given" : p.cpu_vendor, level);
  for (const auto& g : p.gpus)
    out += fmt::format("  GPU{} ({}) {}, node {}, socket {}{}\n", g.index, g.host, g.model, g.node, g.cpu.empty() ? "-" : g.cpu,
                       g.p2p ? "" : ", P2P not supported");
  out += "\nlinks (bandwidth per direction for SPLITDUPLEX, shared by both directions otherwise):\n";
  for (const auto& l : p.links)
    out += fmt::format("  {:<24} {:<12} {:>10} {:>9} {}\n", l.id, link_kind_name(l.kind), format_bandwidth(l.bandwidth_Bps),
                       format_time(l.latency_s), l.split_duplex ? "SPLITDUPLEX" : "SHARED");
  out += "\npath class of every pair (NVL > PIX > PXB > PHB > SYS > NET; 'staged' = through host memory):\n       ";
  for (const auto& g : p.gpus) out += fmt::format("{:>12}", "GPU" + std::to_string(g.index));
  out += "\n";
  std::vector<std::string> never;
  for (const auto& a : p.gpus) {
    out += fmt::format("  GPU{:<3}", a.index);
    for (const auto& b : p.gpus) {
      if (a.index == b.index) {
        out += fmt::format("{:>12}", "X");
        continue;
      }
      try {
        const GpuPath& path = topo.path(a.index, b.index);
        out += fmt::format("{:>12}", std::string(path_class_name(path.path_class)) + (path.staged ? "/staged" : ""));
        if (a.index < b.index) {
          if (path.path_class >= PathClass::PHB && path.path_class != PathClass::NET)
            never.push_back(fmt::format("({},{}) {}", a.index, b.index, path_class_name(path.path_class)));
        }
      } catch (const ValueError&) {
        out += fmt::format("{:>12}", "none");
      }
    }
    out += "\n";
  }
  // Shared links: those on the paths of more than one GPU pair (contention when pairs talk at once).
  std::map<int, int> pairs_on;
  for (const auto& a : p.gpus)
    for (const auto& b : p.gpus)
      if (a.index < b.index) try {
          std::set<int> used;
          for (const auto& leg : topo.path(a.index, b.index).legs)
            for (const auto& l : leg.links) used.insert(l.link);
          for (int l : used) ++pairs_on[l];
        } catch (const ValueError&) {
        }
  out += "\nshared links (GPU pairs whose path crosses them):\n";
  for (const auto& [l, n] : pairs_on)
    if (n > 1) out += fmt::format("  {:<24} {:<12} {} pairs\n", p.links[l].id, link_kind_name(p.links[l].kind), n);
  out += "\ndecision procedure (chapter 1.4, figure 1.4.6):\n";
  std::size_t largest = 0;
  std::vector<std::string> domains;
  for (const auto& d : gpu_domains(topo, PathClass::NVL)) {
    largest = std::max(largest, d.size());
    if (d.size() > 1) domains.push_back(fmt::format("({})", fmt::join(d, ",")));
  }
  out += fmt::format("  NVLink domains: {}; TP groups of up to {} GPUs can keep every all-reduce on NVLink\n",
                     domains.empty() ? "none" : fmt::format("{}", fmt::join(domains, " ")), largest);
  out += fmt::format("  pairs that must never form a TP group (host bridge or socket link): {}\n", never.empty() ? "none" : fmt::format("{}", fmt::join(never, ", ")));
  out += "  then: does the model fit on one GPU? yes -> TP is optional, measure TP=1 replicas against TP on NVLink; no -> use the smallest TP that fits\n";
  return out;
}

std::vector<std::string> import_notes(const TopoMatrix& m, const std::string& gpu_model) {
  std::vector<std::string> notes = m.notes;
  if (auto note = missing_nvlink_note(m, gpu_model)) notes.push_back(*note);
  const PcieTree tree = infer_pcie_tree(m);
  for (const std::string& note : {tree.numa_note, tree.cpu_affinity_note, tree.two_sockets_note})
    if (!note.empty()) notes.push_back(note);
  return notes;
}

// Whether some GPU pair's path goes beyond a PCIe switch (PHB, NODE or SYS): where NCCL's default
// P2P level depends on the CPU vendor.
bool beyond_pxb(const TopoMatrix& m) {
  for (int a = 0; a < m.gpu_count; ++a)
    for (int b = a + 1; b < m.gpu_count; ++b)
      if (const PathCode c = m.path(a, b).code; c == PathCode::PHB || c == PathCode::NODE || c == PathCode::SYS) return true;
  return false;
}

}  // namespace

int topo_command(int argc, char** argv) {
  CLI::App app{"Topology: import `nvidia-smi topo -m` into a SimGrid platform, or show a platform"};
  app.require_subcommand(1);
  auto* import = app.add_subcommand("import", "nvidia-smi topo -m text -> SimGrid platform XML");
  std::string input, gpu, output, platform, cpu, p2p;
  import->add_option("matrix", input, "the output of nvidia-smi topo -m")->required();
  import->add_option("--gpu", gpu, "GPU model: tpsim's name or nvidia-smi's (e.g. A100-SXM4-80GB, \"NVIDIA A100 80GB PCIe\")")->required();
  import->add_option("--cpu", cpu, "CPU vendor (amd, intel, arm, power, zhaoxin): NCCL's default P2P level follows it");
  import->add_option("--p2p", p2p, "yes | no: the GPUs' PCIe P2P support as `nvidia-smi topo -p2p r` reports it (default: the GPU table's, no for GeForce)");
  import->add_option("-o,--output", output, "platform XML to write")->required();
  auto* show_cmd = app.add_subcommand("show", "GPUs, links, path class of every pair, shared links");
  show_cmd->add_option("platform", platform, "SimGrid platform XML")->required();
  if (auto rc = parse_command_line(app, argc, argv)) return *rc;
  if (*import) {
    const TopoMatrix m = parse_topo_matrix(read_input_file(input, "topology file"), input);
    GpuLinkSpec spec;
    try {
      spec = gpu_link_spec(gpu);
    } catch (const ValueError& e) {
      throw InputError({}, std::string("--gpu: ") + e.what());
    }
    const auto& vendors = cpu_vendor_names();
    if (!cpu.empty() && std::find(vendors.begin(), vendors.end(), cpu) == vendors.end())
      throw InputError({}, fmt::format("--cpu: unknown CPU vendor '{}'; expected {}{}", cpu, fmt::join(vendors, ", "),
                                       did_you_mean(cpu, vendors)));
    if (!p2p.empty() && p2p != "yes" && p2p != "no")
      throw InputError({}, fmt::format("--p2p: expected yes or no, not '{}'", p2p));
    if (!p2p.empty()) spec.p2p = p2p == "yes", spec.p2p_given = true;
    for (const std::string& note : import_notes(m, spec.gpu_model)) std::cerr << note << "\n";
    if (cpu.empty() && beyond_pxb(m))
      std::cerr << input << ": note: CPU vendor not given (--cpu): NCCL's default P2P level taken as PXB, as on Intel, so GPU pairs "
                           "beyond it (PHB, NODE, SYS) are host-staged; on AMD hosts NCCL runs P2P across them\n";
    // --p2p yes says the GPUs can; NCCL's P2P level still decides which pairs do (a new user's L40S
    // import with --p2p yes staged its SYS pairs and said nothing).
    else if (spec.p2p_given && spec.p2p && cpu != "amd" && beyond_pxb(m))
      std::cerr << input << ": note: --p2p yes: the GPUs support P2P, but NCCL's P2P level decides which pairs use it, "
                << describe_p2p_default(cpu, "") << ": GPU pairs beyond it (PHB, NODE, SYS) are still host-staged; a "
                   "scenario's collectives: {p2p_level: SYS} (NCCL_P2P_LEVEL=SYS) runs them P2P\n";
    write_file_atomically(output, platform_xml(m, spec, cpu));
    std::cout << fmt::format("wrote {}: {} GPUs, {} NICs from {}\n", output, m.gpu_count, m.nic_count(), input);
    return 0;
  }
  std::cout << show(load_platform_file(platform));
  return 0;
}

}  // namespace tpsim
