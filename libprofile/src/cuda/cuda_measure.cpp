#include "cuda_measure.hpp"

#include <spdlog/spdlog.h>

#include "ptp/profile/detail/cuda_choices.hpp"
#include "cupti_activity.hpp"
#include "ptp/profile/row.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

DeviceBuffer::DeviceBuffer(std::size_t bytes, int fill_byte) : bytes_(bytes) {
  PTP_CUDA_CHECK(cudaMalloc(&ptr_, bytes ? bytes : 1));
  PTP_CUDA_CHECK(cudaMemset(ptr_, fill_byte, bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.ptr_ = nullptr;
  }
  return *this;
}

Stream::Stream() { PTP_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
Stream::~Stream() {
  if (s_) cudaStreamDestroy(s_);
}

int current_sm_version() {
  int dev = 0, major = 0, minor = 0;
  PTP_CUDA_CHECK(cudaGetDevice(&dev));
  PTP_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  PTP_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  return major * 10 + minor;
}

void require_sm(int min_sm, const std::string& what) {
  const int sm = current_sm_version();
  if (sm < min_sm)
    throw PointFailure(PointStatus::unsupported, what + " needs sm_" + std::to_string(min_sm) + ", this GPU is sm_" +
                                          std::to_string(sm));
}

namespace {
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    PTP_CUDA_CHECK(cudaEventCreate(&start));
    PTP_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
};
}  // namespace

void measure_cuda(Measurement& m, cudaStream_t stream, const std::function<void()>& launch) {
  DeviceBuffer flush_buffer;
  if (m.rule().l2_flush) {
    int dev = 0, l2 = 0;
    PTP_CUDA_CHECK(cudaGetDevice(&dev));
    PTP_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    flush_buffer = DeviceBuffer(2 * static_cast<std::size_t>(l2));
  }
  EventPair ev;
  KernelActivity activity;
  static bool warned = false;
  if (!activity.available() && !warned) {
    spdlog::warn("CUPTI Activity API unavailable: rows carry event timings without kernel names");
    warned = true;
  }
  m.measure(
      [&] {
        PTP_CUDA_CHECK(cudaEventRecord(ev.start, stream));
        launch();
        PTP_CUDA_CHECK(cudaGetLastError());
        PTP_CUDA_CHECK(cudaEventRecord(ev.stop, stream));
        PTP_CUDA_CHECK(cudaEventSynchronize(ev.stop));
        float ms = 0;
        PTP_CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
        return ms * 1e-3;
      },
      [&] { PTP_CUDA_CHECK(cudaMemsetAsync(flush_buffer.get(), 0, flush_buffer.bytes(), stream)); });
  const KernelStats k = activity.collect();
  if (k.launches > 0) {
    m.set("kernel_name", cuda_choices::kernel_display_name(k.dominant()));
    const auto calls = static_cast<double>(m.samples().size() + static_cast<std::size_t>(m.rule().warmup));
    const auto prior = m.extra().find("notes");  // keep what the benchmark noted (accumulator, ...)
    const std::string head = prior == m.extra().end() || prior->second.empty() ? "" : prior->second + "; ";
    m.set("notes", head + "cupti: " + std::to_string(k.launches) + " kernel launches, " +
                       format_number(k.total_s() / calls) + " s kernel time per call (flush excluded)");
  }
}

}  // namespace ptp::profile::cuda
