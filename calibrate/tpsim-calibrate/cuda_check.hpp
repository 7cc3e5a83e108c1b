// Checked calls: every CUDA, NCCL and cuBLAS call goes through one of these macros, which
// throw CallError("<the call as written> failed: <the library's error string>").
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <string>

#include "tpsim-calibrate/calib_error.hpp"

namespace tpsim::calib {

inline void check_cuda(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw CallError(call, cudaGetErrorString(e));
}

inline void check_nccl(ncclResult_t r, const char* call) {
  if (r == ncclSuccess) return;
  std::string what = ncclGetErrorString(r);
  const char* last = ncclGetLastError(nullptr);
  if (last && *last) what += std::string(" (") + last + ")";
  throw CallError(call, what);
}

inline void check_cublas(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS) throw CallError(call, cublasGetStatusString(s));
}

}  // namespace tpsim::calib

#define CUDA_CHECK(call) ::tpsim::calib::check_cuda((call), #call)
#define NCCL_CHECK(call) ::tpsim::calib::check_nccl((call), #call)
#define CUBLAS_CHECK(call) ::tpsim::calib::check_cublas((call), #call)
