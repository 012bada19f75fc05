#pragma once
// One sweep point: a registered microbenchmark plus one value per axis. Values are kept as text so
// the point id is exactly what the sweep file said (no float reformatting between runs).
#include <cstdint>
#include <map>
#include <string>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

class Microbenchmark;

struct Point {
  const Microbenchmark* bench = nullptr;
  std::string target;                         // gpu catalog id (or "host"): part of the id so merged files stay unique
  std::map<std::string, std::string> params;  // axis -> value, sorted by axis name

  // "<target>/<bench>/<axis>=<value>/..." with axes in name order: stable across runs and YAML key order.
  std::string id() const;

  const std::string& text(const std::string& axis) const;  // throws InputError naming the point
  std::int64_t integer(const std::string& axis) const;
  double number(const std::string& axis) const;
};

}  // namespace ptp::profile
