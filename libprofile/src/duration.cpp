#include "ptp/profile/duration.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

double parse_duration_s(const std::string& text, const std::string& what) {
  const auto bad = [&] {
    return InputError(what + ": '" + text + "' is not a duration (examples: 90, 90s, 30m, 1.5h, 1h30m)");
  };
  if (text.empty()) throw bad();
  double total = 0;
  const char* p = text.c_str();
  while (*p) {
    char* end = nullptr;
    const double v = std::strtod(p, &end);
    if (end == p || !std::isfinite(v) || v < 0) throw bad();
    double unit = 1;
    if (*end == 'h') unit = 3600, ++end;
    else if (*end == 'm') unit = 60, ++end;
    else if (*end == 's') ++end;
    else if (*end != '\0') throw bad();
    total += v * unit;
    p = end;
  }
  if (!(total > 0)) throw bad();
  return total;
}

std::string format_duration(double seconds) {
  char buf[32];
  if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%.1fs", seconds);
    return buf;
  }
  const long s = std::lround(seconds);
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

}  // namespace ptp::profile
