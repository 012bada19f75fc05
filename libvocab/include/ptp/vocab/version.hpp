#pragma once
// The toolkit's version (CMake's project version): every binary's --version, JSON outputs and
// bundle manifests name it.
#include <string>

namespace ptp::vocab {

const char* ptp_version();
// "<tool> <version>", the git revision it was configured at (when built from a git checkout), and
// the schema versions the tool reads and writes, e.g.
// "ptp-predict 0.1.0 git 244d910 (bundle schema 3, dataset schema 1, output schema 1)".
std::string version_line(const std::string& tool, const std::string& schemas);

}  // namespace ptp::vocab
