// Test executables live in build/tests/profile; the plugins they load sit next to ptp-profile.
#include "ptp/profile/plugins.hpp"

namespace {
[[maybe_unused]] const bool kPluginDirSet = (ptp::profile::set_plugin_dir(PTP_PLUGIN_DIR), true);
}  // namespace
