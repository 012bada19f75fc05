#pragma once
// Typed reads of Hugging Face config.json fields for the importers. json::value() and get<>() throw
// type_error on a wrong type, which would surface as an internal error; these name the field instead.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::hf {

using nlohmann::json;

// The first of `names` present as a number; null counts as absent. A negative fallback makes the
// field required.
inline double field(const json& j, const std::string& path, const std::vector<std::string>& names,
                    double fallback = -1) {
  for (const auto& n : names) {
    auto it = j.find(n);
    if (it != j.end() && it->is_number()) {
      double v = it->get<double>();
      if (!(v >= 0) || v > 1e9) throw InputError(path, 0, 0, n, "expected a non-negative number below 1e9");
      return v;
    }
    if (it != j.end() && !it->is_null() && !it->is_number()) throw InputError(path, 0, 0, n, "expected a number");
  }
  if (fallback < 0) throw InputError(path, 0, 0, names.front(), "missing required field");
  return fallback;
}
inline bool has_number(const json& j, const char* name) {
  auto it = j.find(name);
  return it != j.end() && it->is_number();
}
inline bool flag(const json& j, const std::string& path, const char* name, bool fallback) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) throw InputError(path, 0, 0, name, "expected true or false");
  return it->get<bool>();
}
inline std::string string_field(const json& j, const std::string& path, const char* name,
                                const std::string& fallback) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_string()) throw InputError(path, 0, 0, name, "expected a string");
  return it->get<std::string>();
}

}  // namespace ptp::predict::hf
