// The CUDA plugin's entry point: device discovery and the GPU part of the row context, through the
// runtime API only (no libcuda link). cudaDeviceProp lost clockRate/memoryClockRate in CUDA 13, so
// clocks come from attributes.

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <cupti.h>

#ifdef PTP_HAVE_NCCL
#include <nccl.h>
#endif

#include "../cuda_backend.hpp"
#include "cuda_check.hpp"
#include "ptp/profile/row.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

namespace {
std::string version_text(int v, int major_div, int minor_div, int minor_mod) {
  return std::to_string(v / major_div) + "." + std::to_string(v / minor_div % minor_mod);
}
int attribute(cudaDeviceAttr a, int device) {
  int v = 0;
  return cudaDeviceGetAttribute(&v, a, device) == cudaSuccess ? v : 0;
}

int device_count(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why) *why = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    cudaGetLastError();
    return 0;
  }
  if (n == 0 && why) *why = "no CUDA device visible";
  return n;
}

void select_device(int device) { PTP_CUDA_CHECK(cudaSetDevice(device)); }

std::string device_name(int device) {
  cudaDeviceProp prop{};
  PTP_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop.name;
}

std::string library_versions() {
  std::string s;
  int rt = 0;
  cudaRuntimeGetVersion(&rt);
  s += "cuda_runtime=" + version_text(rt, 1000, 10, 100);
  s += " cublasLt=" + std::to_string(cublasLtGetVersion());
  s += " cudnn=" + std::to_string(cudnnGetVersion());
  uint32_t cupti = 0;
  cuptiGetVersion(&cupti);
  s += " cupti_api=" + std::to_string(cupti);
#ifdef PTP_HAVE_NCCL
  int nccl = 0;
  ncclGetVersion(&nccl);
  s += " nccl=" + std::to_string(nccl);
#endif
  return s;
}

Row capture_context(int device) {
  Row ctx;
  cudaDeviceProp prop{};
  PTP_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  ctx["ctx_gpu_name"] = prop.name;
  ctx["ctx_gpu_cc"] = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  ctx["ctx_gpu_sms"] = std::to_string(prop.multiProcessorCount);
  ctx["ctx_gpu_clock_mhz"] = std::to_string(attribute(cudaDevAttrClockRate, device) / 1000);
  ctx["ctx_mem_clock_mhz"] = std::to_string(attribute(cudaDevAttrMemoryClockRate, device) / 1000);
  ctx["ctx_mem_bus_bits"] = std::to_string(attribute(cudaDevAttrGlobalMemoryBusWidth, device));
  ctx["ctx_gpu_mem_gb"] = format_number(static_cast<double>(prop.totalGlobalMem) / 1e9);
  ctx["ctx_l2_mb"] = format_number(prop.l2CacheSize / 1e6);
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  ctx["ctx_driver"] = version_text(drv, 1000, 10, 100);  // CUDA version the driver supports
  ctx["ctx_cuda_runtime"] = version_text(rt, 1000, 10, 100);
  ctx["ctx_cublas"] = std::to_string(cublasLtGetVersion());
  ctx["ctx_cudnn"] = std::to_string(cudnnGetVersion());
  uint32_t cupti = 0;
  cuptiGetVersion(&cupti);
  ctx["ctx_cupti"] = std::to_string(cupti);
#ifdef PTP_HAVE_NCCL
  int nccl = 0;
  ncclGetVersion(&nccl);
  ctx["ctx_nccl"] = std::to_string(nccl);
#endif
  // Without NVML the link type is unknown; peer access between visible devices is what NCCL can use
  // for direct transfers, recorded as a compact matrix ("0:1,2 1:0,2 ...").
  int n = 0;
  cudaGetDeviceCount(&n);
  ctx["ctx_gpus_visible"] = std::to_string(n);
  std::string topo;
  for (int a = 0; a < n; ++a) {
    topo += (a ? " " : "") + std::to_string(a) + ":";
    std::string peers;
    for (int b = 0; b < n; ++b) {
      int can = 0;
      if (a != b && cudaDeviceCanAccessPeer(&can, a, b) == cudaSuccess && can)
        peers += (peers.empty() ? "" : ",") + std::to_string(b);
    }
    topo += peers.empty() ? "-" : peers;
  }
  ctx["ctx_topology"] = "p2p " + topo + " pcie " + std::to_string(prop.pciBusID);
  return ctx;
}

class RuntimeBackend final : public Backend {
 public:
  int device_count(std::string* why) const override { return cuda::device_count(why); }
  void select_device(int device) const override { cuda::select_device(device); }
  std::string device_name(int device) const override { return cuda::device_name(device); }
  Row capture_context(int device) const override { return cuda::capture_context(device); }
  std::string library_versions() const override { return cuda::library_versions(); }
};

}  // namespace
}  // namespace ptp::profile::cuda

extern "C" const ptp::profile::cuda::Backend* ptp_profile_cuda_backend() {
  static const ptp::profile::cuda::RuntimeBackend backend;
  return &backend;
}
