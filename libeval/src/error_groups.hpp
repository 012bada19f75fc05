#pragma once
// Signed relative errors collected per group (GPU, source, cap band), and the markdown tables and
// summaries the energy evaluation prints of them.
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ptp/eval/vocabulary.hpp"

namespace ptp::eval::detail {

struct Err {
  std::vector<double> e;  // signed relative errors
  void add(double pred, double meas) {
    if (pred > 0 && meas > 0) e.push_back(pred / meas - 1);
  }
  double mape() const;
  double bias() const;  // median signed error
};
using Groups = std::map<std::string, Err>;

// "| group | rows | MAPE % | median signed error % |" per group and for all of them, under `title`.
std::string table(const std::string& title, const Groups& m);
// {rows, mape, median_signed} over every group's rows.
nlohmann::json summary_of(const Groups& m);
// The 80th percentile of |log(predicted / measured)| over groups: the width of the power model's
// 80 % band (power_model::kPowerBand80Log).
double abs_log_quantile80(std::initializer_list<const Groups*> groups);

}  // namespace ptp::eval::detail
