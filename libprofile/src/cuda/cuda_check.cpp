#include "cuda_check.hpp"

#include <stdexcept>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  const std::string msg = std::string(call) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ") at " +
                          file + ":" + std::to_string(line);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky: clear it so the next point starts clean
    throw PointFailure(PointStatus::failed, "out of memory: " + msg);
  }
  if (e == cudaErrorNotSupported || e == cudaErrorInvalidDeviceFunction || e == cudaErrorNoKernelImageForDevice)
    throw PointFailure(PointStatus::unsupported, msg);
  throw std::runtime_error(msg);
}

void throw_cublas(cublasStatus_t s, const char* call, const char* file, int line) {
  const std::string msg = std::string(call) + ": " + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) +
                          ") at " + file + ":" + std::to_string(line);
  if (s == CUBLAS_STATUS_ALLOC_FAILED) throw PointFailure(PointStatus::failed, "out of memory: " + msg);
  if (s == CUBLAS_STATUS_NOT_SUPPORTED || s == CUBLAS_STATUS_ARCH_MISMATCH) throw PointFailure(PointStatus::unsupported, msg);
  throw std::runtime_error(msg);
}

}  // namespace ptp::profile::cuda
