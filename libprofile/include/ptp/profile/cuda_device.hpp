#pragma once
// The CUDA backend's entry points that the CPU-only harness needs. They live in the CUDA plugin
// (libptp_profile_cuda.so, see plugins.hpp), loaded on first use. Built without CUDA they report "not
// compiled in"; with CUDA but no driver/device, device_count() returns 0 and says why.
#include <string>

#include "ptp/profile/row.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

bool compiled();                // this build has a CUDA plugin
bool load(std::string* why);    // loads it (and registers its benchmarks); false and why when it cannot
bool loaded();
// These load the plugin; when it cannot load, device_count returns 0 with the reason, the others throw
// InputError naming the plugin file.
int device_count(std::string* why);
void select_device(int device);
std::string device_name(int device);
Row capture_context(int device);  // ctx_gpu_* , ctx_driver, library versions, topology
std::string library_versions();   // CUDA/cuBLAS/cuDNN/NCCL/CUPTI versions known without a device

}  // namespace ptp::profile::cuda
