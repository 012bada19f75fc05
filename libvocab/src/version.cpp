#include "ptp/vocab/version.hpp"

namespace ptp {

const char* ptp_version() { return PTP_VERSION_STRING; }

std::string version_line(const std::string& tool, const std::string& schemas) {
  return tool + " " + ptp_version() + (schemas.empty() ? "" : " (" + schemas + ")");
}

}  // namespace ptp
