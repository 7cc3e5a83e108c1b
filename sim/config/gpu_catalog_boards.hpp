// Internal to the GPU table (gpu_catalog.cpp): the workstation, GeForce, TITAN and data-center PCIe
// boards added in session 31, kept apart so that each file stays readable. Sources beside each row.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "gpu_catalog.hpp"

namespace tpsim {

// A board without a measurement of its own: 85% of its datasheet memory bandwidth and 70% matmul
// efficiency (the RTX 4090 row's fractions, derived), where the row does not state them.
void derive_board_fractions(GpuSpec& g);
// Appends the rows to the table.
void add_more_boards(std::vector<GpuSpec>& table);
// tpsim name -> what nvidia-smi prints for it, for those rows.
const std::vector<std::pair<std::string, std::string>>& more_board_smi_names();

}  // namespace tpsim
