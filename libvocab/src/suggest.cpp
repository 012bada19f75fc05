#include "ptp/vocab/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace ptp {

std::string to_lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

static std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string> nearest_names(const std::string& wanted, const std::vector<std::string>& candidates,
                                       std::size_t max_count) {
  const std::string w = to_lower(wanted.substr(0, 200));
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& c : candidates) {
    const std::string lc = to_lower(c);
    std::size_t d = edit_distance(w, lc);
    // A shared prefix or containment is a strong hint even when lengths differ a lot.
    if (!w.empty() && (lc.find(w) != std::string::npos || w.find(lc) != std::string::npos)) d = d / 2;
    const std::size_t limit = std::max<std::size_t>(3, std::max(w.size(), lc.size()) / 2);
    if (d <= limit) scored.emplace_back(d, c);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < max_count; ++i) out.push_back(scored[i].second);
  return out;
}

std::string did_you_mean(const std::string& wanted, const std::vector<std::string>& candidates) {
  auto near = nearest_names(wanted, candidates);
  if (near.empty()) return "";
  std::string out = " (did you mean: ";
  for (std::size_t i = 0; i < near.size(); ++i) out += (i ? ", " : "") + near[i];
  return out + "?)";
}

}  // namespace ptp
