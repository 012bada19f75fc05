#include "ptp/profile/point.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "ptp/profile/microbenchmark.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

std::string Point::id() const {
  std::string id = target + "/" + (bench ? bench->name() : std::string("?"));
  for (const auto& [axis, value] : params) id += "/" + axis + "=" + value;
  return id;
}

const std::string& Point::text(const std::string& axis) const {
  auto it = params.find(axis);
  if (it == params.end()) throw InputError(id() + ": missing axis '" + axis + "'");
  return it->second;
}

std::int64_t Point::integer(const std::string& axis) const {
  const std::string& v = text(axis);
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno == ERANGE)
    throw InputError(id() + ": axis '" + axis + "' must be an integer, got '" + v + "'");
  return x;
}

double Point::number(const std::string& axis) const {
  const std::string& v = text(axis);
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(x))
    throw InputError(id() + ": axis '" + axis + "' must be a number, got '" + v + "'");
  return x;
}

}  // namespace ptp::profile
