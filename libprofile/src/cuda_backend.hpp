#pragma once
// The interface between the harness and the CUDA plugin (libptp_profile_cuda.so). The plugin's
// benchmarks register themselves with the harness's Registry while it loads (its undefined harness
// symbols resolve against the executable, which exports them); the factory below hands out the
// device side that cuda_device.hpp forwards to.
#include <string>

#include "ptp/profile/row.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual int device_count(std::string* why) const = 0;
  virtual void select_device(int device) const = 0;
  virtual std::string device_name(int device) const = 0;
  virtual Row capture_context(int device) const = 0;
  virtual std::string library_versions() const = 0;
};

}  // namespace ptp::profile::cuda

// The plugin's one entry point: a Backend that lives as long as the process.
extern "C" const ptp::profile::cuda::Backend* ptp_profile_cuda_backend();
