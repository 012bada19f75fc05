#include "ptp/profile/axis_values.hpp"

#include <cmath>
#include <cstdlib>

#include "ptp/profile/row.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

namespace {
constexpr std::size_t kMaxAxisValues = 4096;  // a typo like step: 1 over [1, 1e9] must not eat memory

std::vector<std::string> expand_range(const YamlReader& axis) {
  axis.check_keys({"range", "step"});
  const YamlReader range = axis.child("range");
  const std::vector<double> bounds = range.as_number_list(-1e18, 1e18);
  if (bounds.size() != 2) range.fail("expected [low, high]");
  const double lo = bounds[0], hi = bounds[1];
  if (hi < lo) range.fail("high is below low");
  const YamlReader step = axis.child("step");
  const std::string s = step.as_string();
  std::vector<std::string> out;
  if (!s.empty() && (s[0] == 'x' || s[0] == '*')) {
    char* end = nullptr;
    const double f = std::strtod(s.c_str() + 1, &end);
    if (*end != '\0' || !(f > 1)) step.fail("a multiplicative step must look like x2 (factor > 1)");
    if (!(lo > 0)) range.fail("a multiplicative range needs low > 0");
    for (double v = lo; v <= hi * (1 + 1e-12); v *= f) {
      out.push_back(format_number(v));
      if (out.size() > kMaxAxisValues) step.fail("range expands to more than 4096 values");
    }
  } else {
    const double d = step.as_number(1e-12, 1e18);
    const auto count = static_cast<std::size_t>(std::floor((hi - lo) / d + 1e-9)) + 1;
    if (count > kMaxAxisValues) step.fail("range expands to more than 4096 values");
    for (std::size_t i = 0; i < count; ++i) out.push_back(format_number(lo + static_cast<double>(i) * d));
  }
  return out;
}
}  // namespace

std::vector<std::string> expand_axis(const YamlReader& axis) {
  if (axis.is_map()) return expand_range(axis);
  if (axis.is_scalar()) return {axis.as_string()};
  if (!axis.is_sequence() || axis.size() == 0) axis.fail("expected a non-empty list, a value or {range, step}");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < axis.size(); ++i) out.push_back(axis.element(i).as_string());
  return out;
}

}  // namespace ptp::profile
