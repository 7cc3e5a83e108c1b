// Entry point of a measuring run (needs CUDA); main.cpp only parses and maps errors.
#pragma once
#include "tpsim-calibrate/calib_options.hpp"

namespace tpsim::calib {

// Throws UsageError, NoDeviceError, RunError/CallError; returns 0 when everything ran.
int run_calibration(const Options& opt);

}  // namespace tpsim::calib
