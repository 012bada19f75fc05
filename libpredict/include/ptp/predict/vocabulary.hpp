#pragma once
// libpredict speaks libvocab's vocabulary (precisions, catalogs, CSV/YAML readers, errors) unqualified,
// as every libpredict file does: the one using-directive that says so.
namespace ptp::vocab {}
namespace ptp::predict {
using namespace ptp::vocab;
}  // namespace ptp::predict
