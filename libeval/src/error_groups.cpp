#include "error_groups.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>

#include "ptp/eval/vocabulary.hpp"

namespace ptp::eval::detail {

double Err::mape() const {
  double s = 0;
  for (double x : e) s += std::fabs(x);
  return e.empty() ? NAN : 100 * s / static_cast<double>(e.size());
}

double Err::bias() const {
  if (e.empty()) return NAN;
  auto v = e;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return 100 * v[v.size() / 2];
}

std::string table(const std::string& title, const Groups& m) {
  std::string md = "\n" + title + "\n\n| group | rows | MAPE % | median signed error % |\n|---|---:|---:|---:|\n";
  Err all;
  char line[256];
  for (const auto& [k, v] : m) {
    std::snprintf(line, sizeof line, "| %s | %zu | %.1f | %+.1f |\n", k.c_str(), v.e.size(), v.mape(), v.bias());
    md += line;
    all.e.insert(all.e.end(), v.e.begin(), v.e.end());
  }
  std::snprintf(line, sizeof line, "| **all** | %zu | %.1f | %+.1f |\n", all.e.size(), all.mape(), all.bias());
  return md + line;
}

nlohmann::json summary_of(const Groups& m) {
  Err all;
  for (const auto& [k, v] : m) all.e.insert(all.e.end(), v.e.begin(), v.e.end());
  if (all.e.empty()) return {{"rows", 0}};
  return {{"rows", all.e.size()}, {"mape", all.mape()}, {"median_signed", all.bias()}};
}

double abs_log_quantile80(std::initializer_list<const Groups*> groups) {
  std::vector<double> v;
  for (const Groups* g : groups)
    for (const auto& [k, err] : *g)
      for (double x : err.e) v.push_back(std::fabs(std::log1p(x)));
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(0.8 * static_cast<double>(v.size())))];
}

}  // namespace ptp::eval::detail
