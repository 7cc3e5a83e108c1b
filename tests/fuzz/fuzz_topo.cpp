// Fuzz target: `nvidia-smi topo -m` text, read with parse_topo_matrix. A matrix that parses
// is imported as `tpsim topo import` would (platform_xml for an NVLink-less, an NVLink and an
// NVSwitch GPU); the platform written must load back (load_platform_file) and connect every
// pair of GPUs: `tpsim topo import` must never write a file `tpsim` then refuses.
#include "config/platform_file.hpp"
#include "fuzz_common.hpp"
#include "model/topology.hpp"
#include "topo/topo_matrix.hpp"
#include "topo/topo_platform.hpp"

using namespace tpsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::accept_input_errors([&] {
    const TopoMatrix m = parse_topo_matrix(text, "topo.txt");
    if (m.gpu_count > 64) return;  // keep one input's work bounded
    for (const char* gpu : {"L40S-48GB", "A100-SXM4-80GB", "H100-SXM5-80GB"}) {
      std::string xml;
      try {
        xml = platform_xml(m, gpu_link_spec(gpu));
      } catch (const InputError&) {
        continue;  // the matrix and this GPU disagree (NV# on a GPU without NVLink): reported
      }
      const std::string path = fuzz::write_scratch("imported.xml", reinterpret_cast<const uint8_t*>(xml.data()), xml.size());
      try {
        Topology topo(load_platform_file(path), {}, "");
        for (int a = 0; a < m.gpu_count; ++a)
          for (int b = 0; b < m.gpu_count; ++b)
            if (a != b) topo.path(a, b);
      } catch (const std::exception& e) {
        fuzz::finding(std::string("the platform imported for ") + gpu + " does not load back: " + e.what() + "\n" + xml);
      }
    }
  });
  return 0;
}
