#pragma once
#include <string>
#include <vector>

namespace ptp {

// Up to `max_count` candidates closest to `wanted` (edit distance, case-insensitive), closest first.
std::vector<std::string> nearest_names(const std::string& wanted, const std::vector<std::string>& candidates,
                                       std::size_t max_count = 3);
// " (did you mean: a, b?)" or "" when nothing is close.
std::string did_you_mean(const std::string& wanted, const std::vector<std::string>& candidates);

std::string to_lower(std::string s);

}  // namespace ptp
