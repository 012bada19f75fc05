#pragma once
// Axis value expansion shared by the sweep reader and its tests.
#include <string>
#include <vector>

#include "ptp/vocab/yaml_reader.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

// A list `[a, b]`, a scalar, or `{range: [lo, hi], step: S}` where S is `xF` (multiply, e.g. x2
// for powers of two) or a positive number (add). Integral values are written without a decimal point.
std::vector<std::string> expand_axis(const YamlReader& axis);

}  // namespace ptp::profile
