// Helpers train_bundle's levels share (trainer_levels.hpp).
#include <cmath>

#include "trainer_levels.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train::detail {

std::string skip_reason_for_gpu(const std::string& gpu) {
  return gpu == "host" ? "host-backend row (no GPU timed)" : "GPU not in the catalog";
}

std::vector<double> out_of_fold(const DenseMatrix& x, const std::vector<float>& y, const std::vector<std::string>& names,
                                const BoosterParams& params, const Split& split, int workers) {
  std::vector<double> pred(y.size(), std::nan(""));
  for_each_fold(split, y.size(), workers, [&](const std::vector<std::size_t>& train, const std::vector<std::size_t>& test) {
    const Booster b = Booster::train(x.select(train), take(y, train), names, params);
    const auto p = b.predict(x.select(test));
    for (std::size_t j = 0; j < test.size(); ++j) pred[test[j]] = p[j];
  });
  return pred;
}

std::vector<double> ape_of(const std::vector<double>& measured, const std::vector<double>& predicted,
                           std::vector<std::size_t>* kept) {
  std::vector<double> ape;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    if (!std::isfinite(predicted[i])) continue;
    ape.push_back(100.0 * std::fabs(predicted[i] - measured[i]) / measured[i]);
    if (kept) kept->push_back(i);
  }
  return ape;
}

std::string data_use_line(const std::string& table, const nlohmann::json& u) {
  std::string out = table + ": " + u["read"].dump() + " rows read, " + u["used"].dump() + " used, " +
                    u["skipped"].dump() + " skipped";
  std::string reasons;
  for (const auto& [why, n] : u["reasons"].items()) reasons += (reasons.empty() ? "" : "; ") + n.dump() + " " + why;
  return out + (reasons.empty() ? "" : " (" + reasons + ")");
}

}  // namespace ptp::train::detail
