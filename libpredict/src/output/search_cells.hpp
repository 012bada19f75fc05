#pragma once
// The pieces of a search result that several printers show alike: the flags that reproduce a row,
// the configurations collapsed into it, its speed-up over the job as written, and the tie margin.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ptp/predict/search.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::search_cells {

// The row's samples per second over the job as written (0 when the job is invalid).
double speedup(const SearchResult& r, const Prediction& p);
nlohmann::json flags_json(const std::vector<Override>& settings);  // ["key=value", ...]
std::string flags_text(const std::vector<Override>& settings);     // "--set key=value ..."
// Each configuration collapsed into the row, as the flags by which it differs from the row's.
std::vector<std::string> equivalent_flags(const SearchRow& row);
std::string percent(double fraction);  // 0.034 -> "3.4", 0.12 -> "12"
// What the tie margin is made of, for people.
std::string tie_basis(const SearchResult& r);
nlohmann::json counts_json(const SearchResult& r);            // the json object's "search"
nlohmann::json row_json(const SearchResult& r, std::size_t i);  // rank, objective, flags of row i

}  // namespace ptp::predict::search_cells
