#include "ptp/vocab/version.hpp"

namespace ptp::vocab {

const char* ptp_version() { return PTP_VERSION_STRING; }

std::string version_line(const std::string& tool, const std::string& schemas) {
  const std::string revision = PTP_GIT_REVISION;
  return tool + " " + ptp_version() + (revision.empty() ? "" : " git " + revision) +
         (schemas.empty() ? "" : " (" + schemas + ")");
}

}  // namespace ptp::vocab
