#include "ptp/profile/row.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

const char* table_name(Table t) { return t == Table::ops ? "ops" : "collectives"; }

std::string format_number(double v) {
  if (!std::isfinite(v)) return "";
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  char buf[40];
  for (int precision = 6; precision <= 17; ++precision) {  // shortest text that reads back exactly
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace ptp::profile
