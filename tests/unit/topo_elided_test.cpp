// Copies of `nvidia-smi topo -m` that people shorten: NIC or affinity columns cut with `...`
// (read when every GPU-GPU entry is there, with a note), a condensed `NUMA` column, and old
// matrices with a CPU Affinity column only, whose CPU lists say which socket an NVLink-only GPU
// hangs off (the DGX-1). Truncated rows stay refusals (topo_import_test.cpp).
#include <doctest/doctest.h>

#include "topo_test_files.hpp"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "topo/topo_matrix.hpp"
#include "topo/topo_pcie_tree.hpp"
#include "util/error.hpp"

using namespace tpsim;

namespace {

// The GPU x GPU block of two matrices is the same.
void check_same_gpu_block(const TopoMatrix& a, const TopoMatrix& b) {
  REQUIRE(a.gpu_count == b.gpu_count);
  for (int i = 0; i < a.gpu_count; ++i)
    for (int j = 0; j < a.gpu_count; ++j) CHECK(a.path(i, j).text() == b.path(i, j).text());
}

// The H800 capture (sglang #28424) with its NIC columns cut by an author: the first two GPU rows,
// header and rows cut after NIC0; the same GPU block, written here as people paste it.
const char* ELIDED_NICS =
    "        GPU0    GPU1    NIC0    ...     CPU Affinity    NUMA Affinity   GPU NUMA ID\n"
    "GPU0     X      NV8     PIX     ...     0-55,112-167    0               N/A\n"
    "GPU1    NV8      X      NODE    ...     0-55,112-167    0               N/A\n"
    "NIC0    PIX     NODE     X      ...\n";

}  // namespace

TEST_CASE("columns cut with '...' import when the GPU block is complete, with a note") {
  const TopoMatrix m = parse_topo_matrix(ELIDED_NICS, "topo.txt");
  CHECK(m.gpu_count == 2);
  CHECK(m.nic_count() == 1);            // NIC0 is before the cut; the others are not read
  CHECK(m.path(0, 1).text() == "NV8");
  CHECK(m.path(0, 2).code == PathCode::PIX);
  CHECK(m.numa_node == std::vector<int>{0, 0});
  REQUIRE(m.notes.size() == 1);
  CHECK(m.notes[0] ==
        "topo.txt:1:33: note: the header elides columns with '...': the GPU x GPU block is complete; the NIC columns after "
        "it are not read, and a GPU row that elides its affinity values gets its NUMA node from the path codes");

  // Affinity cut too: the rows give nothing after '...', the NUMA node comes from the codes.
  const TopoMatrix no_affinity = parse_topo_matrix("        GPU0    GPU1    GPU2    NIC0    ...\n"
                                                   "GPU0     X      NV8     SYS     PIX     ...\n"
                                                   "GPU1    NV8      X      SYS     NODE    ...\n"
                                                   "GPU2    SYS     SYS      X      SYS     ...\n",
                                                   "topo.txt");
  CHECK(infer_pcie_tree(no_affinity).numa == std::vector<int>{0, 0, 1, 0});  // GPU0, GPU1, GPU2, NIC0

  // The full capture and a copy cut after the GPU columns have the same GPU block.
  const TopoMatrix full = parse_topo_matrix(test::read_topo_text("8xh800-nv8-9nic-bond-node.txt"), "full.txt");
  std::string cut;
  std::istringstream lines(test::read_topo_text("8xh800-nv8-9nic-bond-node.txt"));
  for (std::string line; std::getline(lines, line) && line.rfind("NIC0", 0) != 0;)
    cut += line.substr(0, 8 + 8 * 8) + (line.empty() ? "" : "...") + "\n";  // label + 8 GPU columns, 8 wide
  check_same_gpu_block(parse_topo_matrix(cut, "cut.txt"), full);
}

TEST_CASE("a cut that loses GPU entries is a located refusal") {
  CHECK(test::topo_parse_error("        GPU0    GPU1    ...     GPU3\n") ==
        "topo.txt:1:33: error: the header elides GPU columns with '...' (GPU3 appears after it); tpsim needs the path of "
        "every GPU pair: paste the whole `nvidia-smi topo -m` output");
  CHECK(test::topo_parse_error("        GPU0    GPU1    GPU2    CPU Affinity\n"
                    "GPU0     X      NV8     ...     0-7\n") ==
        "topo.txt:2:25: error: row GPU0 gives 2 entries before '...'; tpsim needs its 3 GPU entries (and at most the 3 "
        "columns of the header) before the cut");
  CHECK(test::topo_parse_error("        ...     GPU0\n") ==
        "topo.txt:1:9: error: the header elides columns before any GPU column; tpsim needs every GPU column");
  // Truncated rows (no '...') stay the refusal they were.
  CHECK(test::topo_parse_error("        GPU0    GPU1    CPU Affinity\n"
                    "GPU0     X      NV8\n") ==
        "topo.txt:2:20: error: row GPU0 has 2 entries but the header has 3 columns (2 devices, CPU Affinity)");
}

TEST_CASE("a condensed trailing NUMA column is NUMA Affinity") {
  const std::string name = "8xh100-dgx-condensed-numa-column.txt";
  const TopoMatrix m = parse_topo_matrix(test::read_topo_text(name), name);
  CHECK(m.numa_node == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
  CHECK(m.cpu_affinity[4] == "52-103");
}

TEST_CASE("DGX-1 with a CPU Affinity column only: the CPU lists give the sockets") {
  // Within a socket every pair is NV1/NV2 (no PCIe path printed) and there is no NUMA column: the
  // SYS entries alone leave GPU0-GPU1 open; equal CPU lists (0-19,40-59) put them on one socket,
  // and GPU0-GPU4 (NV2, lists 0-19,40-59 and 20-39,60-79) on two.
  const std::string name = "8xv100-dgx1-cpu-affinity-only.txt";
  const TopoMatrix m = parse_topo_matrix(test::read_topo_text(name), name);
  CHECK(m.numa_node == std::vector<int>(8, -1));
  const PcieTree tree = infer_pcie_tree(m);
  CHECK(tree.numa_from_cpu_affinity);
  CHECK(tree.numa == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
  CHECK(tree.level[0][1] == PathCode::NODE);  // same socket, no shared switch invented
  CHECK(tree.level[0][4] == PathCode::SYS);
  // The NUMA Affinity column of the same board's capture agrees.
  const TopoMatrix numa = parse_topo_matrix(test::read_topo_text("8xv100-sxm2-hybrid-cube-numa.txt"), "numa.txt");
  CHECK(numa.numa_node == tree.numa);
}
