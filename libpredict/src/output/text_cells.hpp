#pragma once
// Cells of the plain-text printers (the report, the sweep table, the search table).
#include <cstdio>
#include <string>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::text_cells {

inline std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
inline std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}
inline std::string lpad(std::string s, std::size_t w) {
  if (s.size() < w) s.insert(0, w - s.size(), ' ');
  return s;
}

}  // namespace ptp::predict::text_cells
