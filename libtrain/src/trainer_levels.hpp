#pragma once
// Private to libtrain: train_bundle (trainer.cpp) fits its levels in one file each (train_compute.cpp,
// train_communication.cpp) and its report (train_report.cpp), and shares these helpers with them.
#include <cstddef>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "ptp/predict/learned/dense_matrix.hpp"
#include "ptp/predict/learned/learned_models.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "ptp/train/booster.hpp"
#include "ptp/train/evaluation.hpp"
#include "ptp/train/trainer.hpp"
#include "ptp/train/training_data.hpp"

namespace ptp::train::detail {

// Host-backend rows (ptp-profile --backend host) time the CPU: they test the pipeline, not a GPU.
std::string skip_reason_for_gpu(const std::string& gpu);

template <typename T>
std::vector<T> take(const std::vector<T>& v, const std::vector<std::size_t>& idx) {
  std::vector<T> out;
  out.reserve(idx.size());
  for (auto i : idx) out.push_back(v[i]);
  return out;
}

// One line of what a table gave training (data_use's JSON: rows read, used, skipped, and why).
std::string data_use_line(const std::string& table, const nlohmann::json& u);

// Out-of-fold predictions of log-ratio targets for one split. Folds are independent and each booster
// is seeded alike, so `workers` threads taking every n-th fold give the same predictions as one.
std::vector<double> out_of_fold(const DenseMatrix& x, const std::vector<float>& y, const std::vector<std::string>& names,
                                const BoosterParams& params, const Split& split, int workers = 1);

// Absolute percentage errors of the finite predictions; `kept` receives their row indices.
std::vector<double> ape_of(const std::vector<double>& measured, const std::vector<double>& predicted,
                           std::vector<std::size_t>* kept = nullptr);

// A trained lower level: its model (as ptp-predict will compose it, through the flattened trees), the
// booster's UBJ bytes for the bundle, and what the report says of its data. Both fitters add their
// held-out metrics to `metrics` when o.cross_validate.
struct ComputeLevel {
  std::unique_ptr<LearnedOpModel> model;
  std::string bytes;
  std::size_t rows = 0;
  std::set<std::string> maths, measured_pairs;
  std::map<std::string, int> skipped;
};
ComputeLevel train_compute_level(const TrainOptions& o, const Catalogs& catalogs, const Table<OpRecord>& ops,
                                 const BoosterParams& params, nlohmann::json& metrics);

struct CommunicationLevel {
  std::unique_ptr<LearnedCollectiveModel> model;
  std::string bytes;
  std::size_t rows = 0;
  std::map<std::string, int> skipped;
};
CommunicationLevel train_communication_level(const TrainOptions& o, const Catalogs& catalogs,
                                             const Table<CollectiveRecord>& colls, const BoosterParams& params,
                                             nlohmann::json& metrics);

// report/report.md's text from the metrics (train_report.cpp).
std::string report_markdown(const TrainOptions& o, std::size_t runs_used, int runs_total, std::size_t op_rows,
                            std::size_t allreduce_rows, nlohmann::json metrics, const std::set<std::string>& precisions_seen,
                            const std::vector<std::string>& families, const std::vector<std::string>& models,
                            const std::map<std::string, int>& run_excluded, const std::string& memory_md);

}  // namespace ptp::train::detail
