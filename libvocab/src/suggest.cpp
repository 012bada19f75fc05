#include "ptp/vocab/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace ptp::vocab {

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

// Close enough to suggest: a Levenshtein distance (case-insensitive) of at most max(2, n / 3) edits,
// n the length of what was typed, and fewer edits than it has characters. Real slips run at about one
// edit in three characters (a100-sxm4-81gb, bert-lrage, batchsize, megatorn: 1 or 2 edits); the floor
// of 2 keeps a swapped pair or two slips in a short name; "fewer than its length" stops a one- or
// two-letter word matching every short id (x -> l4, t4). A name typed in part, one containing the
// other with the shorter at least 3 characters (llama3 for llama3-8b, h100-sxm5 for h100-sxm5-80gb),
// counts half its distance. The rule before (up to max(3, longer / 2) edits) suggested names that
// share only digits: mi300x got "did you mean: gb300" (3 edits in 6), which is no AMD GPU at all,
// where the answer is to add the entry (add_catalog_entry_hint).
std::vector<std::string> nearest_names(const std::string& wanted, const std::vector<std::string>& candidates,
                                       std::size_t max_count) {
  const std::string w = to_lower(wanted.substr(0, 200));
  const std::size_t limit = std::min(std::max<std::size_t>(2, w.size() / 3), w.empty() ? 0 : w.size() - 1);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& c : candidates) {
    const std::string lc = to_lower(c);
    std::size_t d = edit_distance(w, lc);
    if (std::min(w.size(), lc.size()) >= 3 && (lc.find(w) != std::string::npos || w.find(lc) != std::string::npos))
      d = d / 2;
    if (!w.empty() && d <= limit) scored.emplace_back(d, c);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && out.size() < max_count; ++i)
    if (std::find(out.begin(), out.end(), scored[i].second) == out.end()) out.push_back(scored[i].second);
  return out;
}

std::string did_you_mean_list(const std::vector<std::string>& suggestions) {
  if (suggestions.empty()) return "";
  std::string out = " (did you mean: ";
  for (std::size_t i = 0; i < suggestions.size(); ++i) out += (i ? ", " : "") + suggestions[i];
  return out + "?)";
}

std::string did_you_mean(const std::string& wanted, const std::vector<std::string>& candidates) {
  return did_you_mean_list(nearest_names(wanted, candidates));
}

std::string add_catalog_entry_hint(const std::string& wanted, const std::string& dir, const std::string& list_kind) {
  // Catalog ids are file names, lower case by convention (a lookup ignores case).
  const bool file_name = !wanted.empty() && wanted.size() <= 100 && wanted.front() != '.' &&
                         std::all_of(wanted.begin(), wanted.end(), [](char c) {
                           const auto u = static_cast<unsigned char>(c);
                           return std::isalnum(u) || c == '-' || c == '_' || c == '.';
                         });
  const std::string file = (std::filesystem::path(dir) / ((file_name ? to_lower(wanted) : "<id>") + ".yaml")).string();
  return ": not in the catalog; add " + file + " (see docs/extending.md), or run ptp-predict --list " + list_kind;
}

}  // namespace ptp::vocab
