#pragma once
// Error statistics, cross-validation splits and interval calibration for ptp-train's report.
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

struct ErrorStats {
  int n = 0;
  double mape = 0, median_ape = 0;  // percent
};
ErrorStats error_stats(const std::vector<double>& ape_percent);
nlohmann::json to_json(const ErrorStats& s);

// Absolute percentage errors grouped by a label (precision, GPU family, ...).
nlohmann::json grouped_stats(const std::vector<double>& ape, const std::vector<std::string>& labels);

// Fold assignment: fold[i] is the held-out fold of row i, or -1 when the row is never held out.
struct Split {
  std::string name;         // kfold | leave_one_model_out | leave_one_gpu_out | leave_one_scale_out
  std::vector<int> fold;
  int folds = 0;
};
Split kfold_split(const std::vector<std::string>& keys, int k);  // keys hashed for stability
// One fold per group. Groups with fewer than min_rows rows are never held out (fold -1): a
// held-out evaluation that needs pairs within a group gets nothing from a lone row's fold.
Split group_split(const std::string& name, const std::vector<std::string>& groups, std::size_t min_rows = 1);
Split scale_split(const std::vector<int>& num_gpus, int max_train_gpus);
// Calls fold(train, test) for every fold of `split` over `rows` rows with a held-out row and at
// least 20 training rows; `workers` threads take every n-th fold (folds must write disjoint rows).
void for_each_fold(const Split& split, std::size_t rows, int workers,
                   const std::function<void(const std::vector<std::size_t>& train, const std::vector<std::size_t>& test)>& fold);
double quantile(std::vector<double> values, double q);

// Predicted-vs-measured scatter as a standalone SVG (log-log, one colour per group).
std::string scatter_svg(const std::vector<double>& measured, const std::vector<double>& predicted,
                        const std::vector<std::string>& groups, const std::string& title);

}  // namespace ptp::train
