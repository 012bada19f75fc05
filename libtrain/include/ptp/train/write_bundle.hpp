#pragma once
// Writing a model bundle (bundle.hpp describes its layout; libpredict only reads bundles).
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

// Writes boosters (UBJ bytes by level), their flattened trees and the manifest into a temporary
// sibling directory and renames it over `dir`, so a failure never leaves a half-written bundle.
void write_bundle(const std::string& dir, nlohmann::json manifest, const std::map<std::string, std::string>& files);

}  // namespace ptp::train
