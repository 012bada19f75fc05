#pragma once
// Shared pieces of the CUDA microbenchmarks: device buffers that turn OOM into a failed row, and
// event timing with optional L2 flush and CUPTI Activity kernel records.
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>

#include "cuda_check.hpp"
#include "ptp/profile/measurement.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes, int fill_byte = 0);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <typename T = void>
  T* get() const { return static_cast<T*>(ptr_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// Times `launch` (which enqueues one call on `stream`) with a CUDA event pair per sample. Cold runs
// (rule.l2_flush) memset a buffer of twice the L2 size before each sample. Kernel names and summed
// kernel durations from the CUPTI Activity API land in the kernel_name (demangled) and notes cells
// (appended to notes the benchmark set before, e.g. the accumulator). The flush is a memset, which
// CUPTI does not report as a kernel: the kernel time per call excludes it (on the H100, one GEMM
// call per sample gave exactly one kernel record per call).
void measure_cuda(Measurement& m, cudaStream_t stream, const std::function<void()>& launch);

int current_sm_version();  // 80 for sm_80
void require_sm(int min_sm, const std::string& what);  // PointFailure(PointStatus::unsupported) below it

}  // namespace ptp::profile::cuda
