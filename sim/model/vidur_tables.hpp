// The Vidur tables of calibrate/recorded/vidur-kernels/, compiled in (sim/model/CMakeLists.txt
// generates vidur_tables.cpp from the csv files), so that tpsim needs no data folder at run time.
#pragma once
#include <map>
#include <string>

namespace tpsim {

struct VidurTable {
  const char* gemm_csv;   // <gpu>-gemm.csv: op,m,n,k,dtype,time_us,tflops,eff_bw_GBps
  const char* small_csv;  // <gpu>-small-kernels.csv: op,m,hidden,time_us
};

// Keyed by the table's GPU folder name: "a100", "h100", "a40".
const std::map<std::string, VidurTable>& vidur_tables();

}  // namespace tpsim
