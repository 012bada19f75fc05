#pragma once
// CLI11's NonNegativeNumber/PositiveNumber accept nan and inf and, on a negative value, print their
// upper bound (DBL_MAX) in full: a 300-digit line. This check names the flag's range instead.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>

namespace ptp::cli {

inline CLI::Validator number_in(double lo, double hi) {
  std::ostringstream range;
  range << lo << " .. " << hi;
  const std::string expected = range.str();
  return CLI::Validator(
      [lo, hi, expected](std::string& text) -> std::string {
        const char* begin = text.c_str();
        char* end = nullptr;
        const double v = std::strtod(begin, &end);
        if (text.empty() || end != begin + text.size() || !std::isfinite(v))
          return "expected a number in " + expected + ", got '" + text + "'";
        if (v < lo || v > hi) return "value " + text + " out of range, expected " + expected;
        return "";
      },
      "NUMBER in " + expected);
}

}  // namespace ptp::cli
