#pragma once
// Private to libtrain: train_bundle (trainer.cpp) fits its levels in one file each (train_compute.cpp,
// train_communication.cpp) and its report (train_report.cpp), and shares these helpers with them.
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "ptp/predict/calibration.hpp"
#include "ptp/predict/learned/dense_matrix.hpp"
#include "ptp/predict/learned/support.hpp"
#include "ptp/predict/learned/learned_models.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "ptp/train/booster.hpp"
#include "ptp/train/evaluation.hpp"
#include "ptp/train/trainer.hpp"
#include "ptp/train/training_data.hpp"

#include "ptp/train/vocabulary.hpp"

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
  CollectiveReach reach;  // the largest group its rows measured
  std::string bytes;
  std::size_t rows = 0;
  std::map<std::string, int> skipped;
};
CommunicationLevel train_communication_level(const TrainOptions& o, const Catalogs& catalogs,
                                             const Table<CollectiveRecord>& colls, const BoosterParams& params,
                                             nlohmann::json& metrics);

// One published run as the aggregator sees it: its job (and the precision-blind twin), the
// analytical, compute-only and composed steps, and the feature rows.
struct RunRow {
  const RunRecord* record;
  ResolvedJob job, blind_job;
  double analytical = 0, composed = 0, blind_composed = 0;
  double compute_only = 0;  // learned compute level, analytical communication, no aggregator
  double learned_share = 0;  // compute_learned_share of the composed step
  // The GPU's power cap stretches the step by this (power_limit_stretch of the composed step, as
  // ptp-predict stretches its learned answer; 1: uncapped). Every level predicts the uncapped step,
  // so a run measured under a cap is learned as measured / stretch. The analytical answer's own
  // stretch differs a little (its phases differ): analytical_stretch.
  double power_stretch = 1, analytical_stretch = 1;
  // The run and the analytical answer in the levels' uncapped frame (what the aggregator learns from
  // and is judged against).
  double measured_uncapped() const { return record->step_time_s / power_stretch; }
  double analytical_uncapped() const { return analytical * analytical_stretch / power_stretch; }
  std::vector<float> features, blind_features;
  // Where shrinkage starts from (AggregatorRowValues::halves), and its blind twin's.
  StepHalves halves, blind_halves;
  std::string precision, gpu_family, model, gpu;
  // For the calibration evaluation: the composed step (its parts after the held-out correction, and
  // without it) and the analytical one.
  Prediction composed_step, analytical_step;
};

// The aggregator's table, one entry per run in the order of the rows: features, targets
// (log(measured / composed)), and what the splits group by.
struct AggregatorTable {
  DenseMatrix x, blind_x;
  std::vector<float> y, blind_y;
  std::vector<double> measured, analytical, composed;  // measured: uncapped (RunRow::power_stretch)
  std::vector<double> power_stretch;
  // Where the shrinkage toward the analytical answer starts: each run's step halves, composed and
  // analytical (AggregatorRowValues::halves), and its precision-blind twin's.
  std::vector<StepHalves> halves, blind_halves;
  std::vector<std::string> keys, models, gpus, precisions, families, codebases;
  std::vector<std::string> kinds;  // ModelDesc::workload_kind of each run's model
  std::vector<int> num_gpus;
  explicit AggregatorTable(const std::vector<RunRow>& rows);
};

// A set of predictions' error report (overall, by precision, GPU family and model).
using ReportBlock = std::function<nlohmann::json(const std::vector<double>&)>;

// What the held-out splits give the bundle: the fitted shrinkage, the bands (manifest `interval`),
// and each split's held-out predictions (report/predictions.csv). Without cross-validation: the
// whole correction everywhere and zero-width bands.
nlohmann::json uncalibrated_bands();
struct AggregatorCv {
  CorrectionShrinkage shrinkage;
  nlohmann::json interval = uncalibrated_bands();
  std::map<std::string, std::vector<double>> oof_columns;
};
AggregatorCv cross_validate_aggregator(const TrainOptions& o, const std::vector<RunRow>& rows, const AggregatorTable& t,
                                       const BoosterParams& agg, int workers, const ReportBlock& report_block,
                                       nlohmann::json& metrics);
// Calibration on stacks the aggregator never saw (calibration_eval.hpp); returns calibration.md.
std::string evaluate_calibration_held_out(const TrainOptions& o, const std::vector<RunRow>& rows, const AggregatorTable& t,
                                          const BoosterParams& agg, int workers, const CorrectionShrinkage& shrinkage,
                                          nlohmann::json& metrics);

// report/report.md's text from the metrics (train_report.cpp).
std::string report_markdown(const TrainOptions& o, std::size_t runs_used, int runs_total, std::size_t op_rows,
                            std::size_t allreduce_rows, nlohmann::json metrics, const std::set<std::string>& precisions_seen,
                            const std::vector<std::string>& families, const std::vector<std::string>& models,
                            const std::map<std::string, int>& run_excluded, const std::string& evaluations_md);
// (evaluations_md: the memory and energy evaluations' sections, headed, or "".)
// Writes OUT/report/: report.md, predictions.csv (each run's measured, analytical, composed and
// held-out steps), calibration.md (when not empty) and the leave-one-model-out scatter plot.
void write_report(const std::string& out_dir, const std::vector<RunRow>& rows, const AggregatorTable& t,
                  const std::map<std::string, std::vector<double>>& oof_columns, const std::string& report_md,
                  const std::string& calibration_md);

}  // namespace ptp::train::detail
