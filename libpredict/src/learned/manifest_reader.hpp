#pragma once
// manifest.json as LearnedBundle::load reads it. Its support points (one per training run, 11
// numbers each) are most of the file, and nlohmann's lexer spent most of a learned call's start-up
// on them: they are read here with std::from_chars (correctly rounded, as the strtod nlohmann calls:
// the same numbers), the rest through nlohmann with the points array cut out. Anything unexpected
// around them (not exactly one "points" key, not an array of arrays of JSON numbers, an integer too
// long for a double to hold exactly) reads the whole file through nlohmann, as before. The training
// metrics, which prediction never reads, are skipped by matching their brackets, not lexed.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::detail {

struct ParsedManifest {
  nlohmann::json json;  // without "metrics"; with `points`, its support.points is an empty array
  std::optional<std::vector<std::vector<double>>> points;  // support.points, when read apart
};
// Throws what nlohmann::json::parse throws on the whole text.
ParsedManifest parse_manifest(std::string_view text);

}  // namespace ptp::predict::detail
