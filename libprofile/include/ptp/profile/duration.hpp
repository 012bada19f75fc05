#pragma once
#include <string>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

// "90", "90s", "30m", "1.5h", "1h30m" -> seconds. Throws InputError naming `what`.
double parse_duration_s(const std::string& text, const std::string& what);
std::string format_duration(double seconds);  // "1:05:03" / "4:12" / "12.3s"

}  // namespace ptp::profile
