#pragma once
// Error checks at the C boundaries of the CUDA libraries: a failing call becomes an exception that
// names the call, the decoded error and file:line. Out-of-memory and "not supported" become
// PointFailure so the sweep records the point and moves on.
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <string>

#include "ptp/profile/measurement.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

[[noreturn]] void throw_cuda(cudaError_t e, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas(cublasStatus_t s, const char* call, const char* file, int line);

}  // namespace ptp::profile::cuda

#define PTP_CUDA_CHECK(call)                                                               \
  do {                                                                                     \
    const cudaError_t ptp_e_ = (call);                                                     \
    if (ptp_e_ != cudaSuccess) ::ptp::profile::cuda::throw_cuda(ptp_e_, #call, __FILE__, __LINE__); \
  } while (0)

#define PTP_CUBLAS_CHECK(call)                                                                      \
  do {                                                                                              \
    const cublasStatus_t ptp_s_ = (call);                                                           \
    if (ptp_s_ != CUBLAS_STATUS_SUCCESS) ::ptp::profile::cuda::throw_cublas(ptp_s_, #call, __FILE__, __LINE__); \
  } while (0)
