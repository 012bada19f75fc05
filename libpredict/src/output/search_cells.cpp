#include "search_cells.hpp"

#include <cmath>

#include "text_cells.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::search_cells {

double speedup(const SearchResult& r, const Prediction& p) {
  return r.job.valid && r.job.samples_per_second > 0 ? p.samples_per_second / r.job.samples_per_second : 0;
}

nlohmann::json flags_json(const std::vector<Override>& settings) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& [k, v] : settings) a.push_back(k + "=" + v);
  return a;
}

std::string flags_text(const std::vector<Override>& settings) {
  std::string out;
  for (const auto& [k, v] : settings) out += (out.empty() ? "" : " ") + std::string("--set ") + k + "=" + v;
  return out;
}

std::vector<std::string> equivalent_flags(const SearchRow& row) {
  std::vector<std::string> out;
  for (const auto& e : row.equivalent) {
    std::vector<Override> differ;
    for (std::size_t i = 0; i < e.size(); ++i)
      if (i >= row.settings.size() || e[i] != row.settings[i]) differ.push_back(e[i]);
    out.push_back(flags_text(differ));
  }
  return out;
}

std::string percent(double fraction) {
  const double p = 100 * fraction;
  return text_cells::fmt(std::fabs(p) < 10 ? "%.1f" : "%.0f", p);
}

std::string tie_basis(const SearchResult& r) {
  const bool energy = r.objective == SearchObjective::energy || r.objective == SearchObjective::carbon;
  return "a tenth of the best row's 80 % " + std::string(energy ? "energy" : "step-time") + " band, " +
         percent(r.tie_band_low - 1) + " % .. +" + percent(r.tie_band_high - 1) + " %, in log space";
}

nlohmann::json counts_json(const SearchResult& r) {
  return {{"job", r.job_file},
          {"objective", search_objective_name(r.objective)},
          {"axes", r.axes},
          {"configurations", r.configurations},
          {"invalid", r.invalid},
          {"no_fit", r.no_fit},
          {"unpriced", r.unpriced},
          {"unpriced_gpus", r.unpriced_gpus},
          {"ranked", r.ranked},
          {"shown", r.rows.size()},
          {"tie_margin", r.tie_margin},
          {"tie_basis", tie_basis(r)}};
}

nlohmann::json row_json(const SearchResult& r, std::size_t i) {
  const auto& row = r.rows[i];
  return {{"rank", i + 1},
          {"job", r.job_file},
          {"objective", search_objective_name(r.objective)},
          {"objective_value", row.objective},
          {"tie", row.tie},
          {"speedup_vs_job", speedup(r, row.prediction)},
          {"set", flags_json(row.settings)},
          {"changes", row.changes},
          {"equivalent", equivalent_flags(row)}};
}

}  // namespace ptp::predict::search_cells

namespace ptp::predict {

std::string search_summary(const SearchResult& r) {
  std::string unpriced;
  if (r.unpriced > 0) {
    std::string gpus;
    for (const auto& g : r.unpriced_gpus) gpus += (gpus.empty() ? "" : ", ") + g;
    unpriced = std::to_string(r.unpriced) + " unpriced (no price for " + gpus + ": left out of the cost ranking), ";
  }
  return std::to_string(r.configurations) + " configurations: " + std::to_string(r.invalid) + " invalid, " +
         std::to_string(r.no_fit) + " do not fit in memory (with 5 % headroom), " + unpriced +
         std::to_string(r.ranked) + " ranked";
}

}  // namespace ptp::predict
