// Internal to the GPU table (gpu_catalog.cpp): the workstation, GeForce, TITAN and data-center PCIe
// boards added in session 31, kept apart so that each file stays readable. Sources beside each row.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "gpu_catalog.hpp"

namespace tpsim {

// Appends the rows to the table.
void add_more_boards(std::vector<GpuSpec>& table);
// tpsim name -> what nvidia-smi prints for it, for those rows.
const std::vector<std::pair<std::string, std::string>>& more_board_smi_names();

}  // namespace tpsim
