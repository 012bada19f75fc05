#pragma once
// XGBoost's own model (UBJ bytes, as Booster::save_ubj writes) flattened into the TreeEnsemble that
// ptp-predict walks (ptp/predict/learned/tree_ensemble.hpp); no XGBoost needed.
#include <string>

#include "ptp/predict/learned/tree_ensemble.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

// Refuses what the flattened form does not reproduce (dart, categorical splits, multi-output,
// objectives with an output transform). `origin` names the source in errors.
TreeEnsemble flatten_xgboost_ubj(const std::string& ubj, const std::string& origin);

}  // namespace ptp::train
