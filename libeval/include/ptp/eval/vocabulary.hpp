#pragma once
// libeval judges libpredict's estimates and names its types (and, through it, libvocab's)
// unqualified: the one using-directive that says so.
#include "ptp/predict/vocabulary.hpp"

namespace ptp::eval {
using namespace ptp::predict;
}  // namespace ptp::eval
