#pragma once
#include <string>
#include <vector>

namespace ptp::vocab {

// Up to `max_count` candidates close to `wanted` (suggest.cpp states the rule), closest first;
// none when nothing is close enough.
std::vector<std::string> nearest_names(const std::string& wanted, const std::vector<std::string>& candidates,
                                       std::size_t max_count = 3);
// " (did you mean: a, b?)" or "" when nothing is close.
std::string did_you_mean(const std::string& wanted, const std::vector<std::string>& candidates);
// The same for suggestions already chosen (a catalog that matched aliases and suggests their ids).
std::string did_you_mean_list(const std::vector<std::string>& suggestions);

// For an id a catalog (a directory of <id>.yaml files) lacks and nothing in it is close to:
// ": not in the catalog; add DIR/<id>.yaml (see docs/extending.md), or run ptp-predict --list KIND".
// An id that cannot be a file name (a slash, a control character) is named as <id>.
std::string add_catalog_entry_hint(const std::string& wanted, const std::string& dir, const std::string& list_kind);

std::string to_lower(std::string s);

}  // namespace ptp::vocab
