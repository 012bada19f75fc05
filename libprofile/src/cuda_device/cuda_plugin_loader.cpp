// The harness side of the CUDA plugin (built when the CUDA backend is): cuda_device.hpp's functions
// load libptp_profile_cuda.so on first use and forward to it.
#include "../cuda_backend.hpp"
#include "ptp/profile/cuda_device.hpp"
#include "ptp/profile/plugins.hpp"
#include "ptp/vocab/error.hpp"

#ifndef PTP_CUDA_PLUGIN_FILE
#error "PTP_CUDA_PLUGIN_FILE (the plugin's file name) comes from libprofile/CMakeLists.txt"
#endif

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

namespace {
const Backend*& plugin() {
  static const Backend* backend = nullptr;
  return backend;
}

const Backend& backend() {
  if (!plugin()) {
    using Factory = const Backend* (*)();
    plugin() = reinterpret_cast<Factory>(plugin_symbol(PTP_CUDA_PLUGIN_FILE, "ptp_profile_cuda_backend"))();
  }
  return *plugin();
}
}  // namespace

bool compiled() { return true; }

bool load(std::string* why) {
  try {
    backend();
    return true;
  } catch (const InputError& e) {
    if (why) *why = e.what();
    return false;
  }
}

bool loaded() { return plugin() != nullptr; }

int device_count(std::string* why) { return load(why) ? backend().device_count(why) : 0; }
void select_device(int device) { backend().select_device(device); }
std::string device_name(int device) { return backend().device_name(device); }
Row capture_context(int device) { return backend().capture_context(device); }

std::string library_versions() {
  std::string why;
  return load(&why) ? backend().library_versions() : why;
}

}  // namespace ptp::profile::cuda
