#pragma once
// libtrain trains the levels of libpredict's predictor and names its types (and, through it, libvocab's)
// unqualified: the one using-directive that says so.
#include "ptp/predict/vocabulary.hpp"

namespace ptp::train {
using namespace ptp::predict;
}  // namespace ptp::train
