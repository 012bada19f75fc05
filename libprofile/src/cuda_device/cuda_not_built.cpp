// cuda_device.hpp in a build without the CUDA backend: no device, and `--backend cuda` refused with
// the reason.
#include "ptp/profile/cuda_device.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

namespace {
const char* const kNotBuilt = "this ptp-profile was built without CUDA (configure with -DPTP_WITH_CUDA=ON)";
}  // namespace

bool compiled() { return false; }
bool load(std::string* why) {
  if (why) *why = kNotBuilt;
  return false;
}
bool loaded() { return false; }
int device_count(std::string* why) {
  load(why);
  return 0;
}
void select_device(int) { throw InputError(std::string("--backend cuda: ") + kNotBuilt); }
std::string device_name(int) { return ""; }
Row capture_context(int) { return {}; }
std::string library_versions() { return "built without CUDA"; }

}  // namespace ptp::profile::cuda
