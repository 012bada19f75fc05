#include "ptp/train/trainer.hpp"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>
#include <thread>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/calibration.hpp"
#include "ptp/predict/energy.hpp"
#include "ptp/predict/learned/bundle.hpp"
#include "ptp/predict/learned/features.hpp"
#include "ptp/eval/energy_evaluation.hpp"
#include "ptp/eval/memory_evaluation.hpp"
#include "ptp/predict/learned/support.hpp"
#include "ptp/predict/learned/tree_ensemble.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "ptp/train/booster.hpp"
#include "ptp/train/calibration_eval.hpp"
#include "ptp/train/evaluation.hpp"
#include "ptp/train/flatten_xgboost.hpp"
#include "ptp/train/stack_effects.hpp"
#include "ptp/train/training_data.hpp"
#include "ptp/train/write_bundle.hpp"
#include "ptp/train/thin_support_fit.hpp"
#include "trainer_levels.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/version.hpp"

namespace fs = std::filesystem;

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

using namespace detail;

namespace {

std::string data_path(const std::string& dir, const std::string& table) {
  std::error_code ec;
  const fs::path folder = fs::path(dir) / table;
  if (fs::is_directory(folder, ec)) return folder.string();
  const fs::path file = fs::path(dir) / (table + ".csv");
  if (!fs::is_regular_file(file, ec)) throw InputError(dir, 0, 0, "", "missing " + table + ".csv (or " + table + "/)");
  return file.string();
}

// What a table gave training: rows read, used, and each reason rows were left out. ptp-train prints
// it and the report keeps it, so a dataset that silently shrank is visible.
nlohmann::json data_use(int read, std::size_t used, const std::map<std::string, int>& skipped) {
  int total = 0;
  for (const auto& [why, n] : skipped) total += n;
  return {{"read", read}, {"used", used}, {"skipped", total}, {"reasons", skipped}};
}

// ---- runs ------------------------------------------------------------------------------------

// End-to-end training stays well below the dense peak (the best published large-scale runs reach an
// MFU of ~0.6). A published step whose MFU against the policy's own GEMM peak would exceed this
// cannot be the configuration its row describes (e.g. DLE BERT phase-2 rows at 1.2x the V100 FP32
// peak), so the row is excluded rather than learned. Convs are left out of the count: FP32 Winograd
// kernels do fewer multiplies than the direct count (Lambda's FP32 SSD300 runs imply > 0.8 of it).
constexpr double kMaxPlausibleMfu = 0.8;

std::string format_g(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

void export_aggregator_rows(const std::string& path, const std::vector<RunRow>& rows) {
  // Seconds in the levels' uncapped frame (measured / power_stretch, as the aggregator learns them);
  // the stretch is the last column, so the feature columns keep their places.
  std::vector<std::string> header = {"run_id", "codebase", "stack", "model", "gpu", "precision", "num_gpus",
                                     "measured_s", "analytical_s", "composed_s"};
  const auto& names = run_feature_names(false);
  header.insert(header.end(), names.begin(), names.end());
  header.push_back("power_stretch");
  std::string csv = csv_line(header);
  for (const auto& r : rows) {
    std::vector<std::string> cells = {r.record->run_id, r.record->codebase, r.record->stack, r.model, r.gpu, r.precision,
                                      std::to_string(r.job.job.cluster.num_gpus), format_g(r.measured_uncapped()),
                                      format_g(r.analytical_uncapped()), format_g(r.composed)};
    for (float f : r.features) cells.push_back(format_g(f));
    cells.push_back(format_g(r.power_stretch));
    csv += csv_line(cells);
  }
  write_file_atomically(path, csv);
}

// The runs the training data can state as a job, each with its precision-blind twin; a run left out
// is counted in `excluded` under its reason.
std::vector<RunRow> resolve_run_rows(const Table<RunRecord>& runs, const Catalogs& catalogs,
                                     std::map<std::string, int>& excluded) {
  std::vector<RunRow> rows;
  rows.reserve(runs.rows.size());
  for (const auto& rec : runs.rows) {
    RunRow row;
    row.record = &rec;
    try {
      row.job = resolve_job(rec.job, catalogs);
      JobSpec blind = rec.job;
      blind.precision = "fp32";
      row.blind_job = resolve_job(blind, catalogs);
    } catch (const InputError& e) {
      std::string why = e.what();
      why = why.substr(why.find(": ") == std::string::npos ? 0 : why.find(": ") + 2);
      ++excluded["cannot be stated as a job spec: " + why.substr(0, 70)];
      continue;
    }
    if (implied_matmul_utilization(row.job, rec.step_time_s) > kMaxPlausibleMfu) {
      ++excluded["step implies an MFU above " + std::to_string(static_cast<int>(std::lround(100 * kMaxPlausibleMfu))) +
                 " % of the policy's dense peak: not the configuration described"];
      continue;
    }
    row.precision = rec.job.precision;
    row.gpu_family = row.job.gpu->architecture;
    row.model = rec.job.model;
    row.gpu = row.job.gpu->id;
    rows.push_back(std::move(row));
  }
  return rows;
}

// Composing each run through the learned lower levels is the expensive part; rows are
// independent, so worker threads each take every n-th row, sharing the levels, each with its own
// memo of their answers.
void compose_run_rows(std::vector<RunRow>& rows, const LearnedLevels& levels, int workers) {
  const AnalyticalConstants analytical_k;
  auto work = [&](int w) {
    LearnedMemo memo;
    for (std::size_t i = static_cast<std::size_t>(w); i < rows.size(); i += static_cast<std::size_t>(workers)) {
      RunRow& row = rows[i];
      const Prediction analytical = predict_analytical(row.job, analytical_k);
      row.analytical = analytical.iteration_s;
      row.analytical_stretch = power_limit_stretch(row.job, analytical);
      row.analytical_step = analytical;
      row.compute_only = compose_learned(row.job, analytical_k, {levels.compute, nullptr}, memo).step.iteration_s;
      LearnedComposition composed = compose_learned(row.job, analytical_k, levels, memo, AggregatorRow::full);
      LearnedComposition blind = compose_learned(row.blind_job, analytical_k, levels, memo, AggregatorRow::blind);
      row.composed = composed.step.iteration_s;
      row.composed_step = composed.step;
      row.power_stretch = power_limit_stretch(row.job, composed.step);
      row.learned_share = composed.step.compute_learned_share;
      row.blind_composed = blind.step.iteration_s;
      row.features = std::move(composed.aggregator_row);
      row.halves = composed.halves;
      row.blind_features = std::move(blind.aggregator_row);
      row.blind_halves = blind.halves;
    }
  };
  std::vector<std::thread> threads;
  for (int w = 1; w < workers; ++w) threads.emplace_back(work, w);
  work(0);
  for (auto& t : threads) t.join();
}

BoosterParams aggregator_params(const BoosterParams& params) {
  // Chosen on the CV splits, judged on the mean over seeds 7 and 1-5 (scripts/cv_seed_spread.py):
  // depth 6 with 300 rounds at eta 0.05 beat depth 5 / 150 / 0.08 on 5-fold (6.45 vs 7.14 %),
  // leave-one-GPU-out (12.5 vs 12.9) and leave-one-scale-out (10.3 vs 10.8), leave-one-model-out
  // unchanged (16.9); depth 4 or 7, min_child_weight 5/20, colsample 0.4 were no better.
  BoosterParams agg = params;
  agg.rounds = 300;
  agg.max_depth = 6;
  agg.eta = 0.05;
  agg.min_child_weight = 10;
  agg.colsample = 0.6;
  // Physics the trees must not contradict: a faster fabric, or less exposed communication, never
  // asks for a larger correction (tests/loop/test_physics_invariances.cpp).
  agg.monotone = {{"log_intra_bandwidth", -1}, {"log_inter_node_bandwidth", -1}, {"comm_exposed_share", 1}};
  agg.threads = 1;  // ~2k rows: one thread per booster, the CV folds run in parallel instead
  return agg;
}

// The error report of a set of step predictions against the runs' measured steps.
ReportBlock run_error_report(const AggregatorTable& t) {
  return [&t](const std::vector<double>& pred) {
    std::vector<std::size_t> kept;
    const auto ape = ape_of(t.measured, pred, &kept);
    return nlohmann::json{{"overall", to_json(error_stats(ape))},
                          {"by_precision", grouped_stats(ape, take(t.precisions, kept))},
                          {"by_gpu_family", grouped_stats(ape, take(t.families, kept))},
                          {"by_model", grouped_stats(ape, take(t.models, kept))}};
  };
}

double mean_learned_share(const std::vector<RunRow>& rows) {
  double share = 0;
  for (const auto& r : rows) share += r.learned_share;
  return std::round(1000 * share / static_cast<double>(rows.size())) / 1000;
}

// The memory estimate against published peaks (datasets/memory.csv, when there): a report, not a
// level (nothing is fitted to them). Returns its markdown ("" without the table).
std::string memory_report(const TrainOptions& o, const Catalogs& catalogs, nlohmann::json& metrics) {
  const fs::path memory_csv = fs::path(o.data_dir) / "memory.csv";
  if (!fs::is_regular_file(memory_csv)) return std::string();
  eval::MemoryEvaluationOptions mo;
  mo.memory_csv = memory_csv.string();
  const auto memory = eval::evaluate_memory(mo, catalogs);
  metrics["memory"] = memory.summary;
  o.log("memory: " + metrics["memory"].dump());
  return memory.markdown;
}

// A section's "## " headings one level down, to sit under the report's own heading.
std::string demote_headings(std::string md) {
  for (std::size_t at = md.find("\n## "); at != std::string::npos; at = md.find("\n## ", at + 4)) md.insert(at + 1, "#");
  return md;
}

// The energy estimate against published power measurements (datasets/power.csv, when there): a
// report, not a level (its constants are fitted by scripts/fit_power_constants.py, stated in
// energy.hpp). Returns its markdown ("" without the table).
std::string energy_report(const TrainOptions& o, nlohmann::json& metrics) {
  const fs::path power_csv = fs::path(o.data_dir) / "power.csv";
  if (!fs::is_regular_file(power_csv)) return std::string();
  eval::EnergyEvaluationOptions eo;
  eo.power_csv = power_csv.string();
  eo.config_dir = o.config_dir.empty() ? config_root() : o.config_dir;
  const auto energy = eval::evaluate_energy(eo);
  metrics["energy"] = energy.summary;
  o.log("energy: " + metrics["energy"].dump());
  return energy.markdown;
}

// {codebase: log offset}; an object even with no codebase.
nlohmann::json codebase_offsets_json(const StackFit& aggregator) {
  nlohmann::json offsets = nlohmann::json::object();
  for (const auto& [cb, b] : aggregator.offsets) offsets[cb] = b;
  return offsets;
}

nlohmann::json manifest_shrinkage(const CorrectionShrinkage& shrinkage, double typical_level) {
  nlohmann::json by_kind = nlohmann::json::object();
  for (const auto& [kind, s] : shrinkage.unknown_by_kind) by_kind[kind] = s.to_json();
  return {{"known_codebase", shrinkage.known.to_json()}, {"unknown_codebase", shrinkage.unknown.to_json()},
          {"unknown_codebase_by_kind", by_kind}, {"typical_level", typical_level}, {"thin_support", shrinkage.thin.to_json()}};
}

// What the bundle was trained on, beside the levels: features, domain, shrinkage, support, bands,
// the data's checksums and the metrics.
nlohmann::json bundle_manifest(const TrainOptions& o, const std::vector<RunRow>& rows, const AggregatorTable& t,
                               const ComputeLevel& compute_level, const CollectiveReach& communication_reach,
                               const AggregatorCv& cv, const StackFit& aggregator,
                               const nlohmann::json& training_data, const nlohmann::json& metrics) {
  std::vector<std::vector<float>> feature_rows;
  for (const auto& r : rows) feature_rows.push_back(r.features);
  std::vector<std::size_t> every_run(t.precisions.size());
  std::iota(every_run.begin(), every_run.end(), std::size_t{0});
  int major = 0, minor = 0, patch = 0;
  XGBoostVersion(&major, &minor, &patch);
  return {
      {"schema_version", kBundleSchemaVersion},
      {"dataset_schema_version", "1"},
      {"ptp_version", ptp_version()},
      {"xgboost_version", std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch)},
      {"blind", o.blind},
      {"seed", o.seed},
      {"features",
       {{"aggregator", o.blind ? run_feature_names(true) : run_feature_names(false)},
        {"compute", op_feature_names()},
        {"communication", collective_feature_names()}}},
      {"targets", "log(measured / bound): compute vs the analytical kernel model (off the compute_measured GPU x math pairs blended 50/50 in log space with the analytical op time when composing), communication vs ring bound, aggregator vs composed step"},
      {"compute_maths", compute_level.maths},
      {"compute_measured", compute_level.measured_pairs},
      {"communication_reach",
       {{"max_ranks", communication_reach.max_ranks}, {"max_nodes", communication_reach.max_nodes}}},
      {"domain",
       {{"precisions", std::set<std::string>(t.precisions.begin(), t.precisions.end())},
        {"model_parallel", true},
        {"models", std::set<std::string>(t.models.begin(), t.models.end())},
        {"gpus", std::set<std::string>(t.gpus.begin(), t.gpus.end())},
        {"max_num_gpus", t.num_gpus.empty() ? 1 : *std::max_element(t.num_gpus.begin(), t.num_gpus.end())},
        {"precision_codebases", codebases_by_precision(t.precisions, t.codebases, every_run)},
        {"gpu_runs", counts_of(t.gpus)},
        {"architecture_gpu_runs", best_gpu_runs_by_architecture(t.gpus, t.families)},
        {"precision_runs", counts_of(t.precisions)}}},
      {"codebase_offsets", codebase_offsets_json(aggregator)},
      {"shrinkage", manifest_shrinkage(cv.shrinkage, aggregator.level)},
      {"support", SupportSpace(feature_rows, run_feature_names(false)).to_json()},
      {"training_data", training_data},
      {"interval", cv.interval},
      {"metrics", metrics}};
}

}  // namespace

TrainResult train_bundle(const TrainOptions& o) {
  const Catalogs catalogs(o.config_dir.empty() ? config_root() : o.config_dir);
  const auto runs = load_runs(data_path(o.data_dir, "runs"));
  const auto ops = load_ops(data_path(o.data_dir, "ops"));
  const auto colls = load_collectives(data_path(o.data_dir, "collectives"));
  o.log("loaded " + std::to_string(runs.rows.size()) + " runs, " + std::to_string(ops.rows.size()) + " ops, " +
        std::to_string(colls.rows.size()) + " collectives");
  nlohmann::json metrics;
  BoosterParams params;
  params.seed = o.seed;
  params.threads = o.threads;

  // Compute level: op time relative to the analytical kernel model (train_compute.cpp).
  const ComputeLevel compute_level = train_compute_level(o, catalogs, ops, params, metrics);
  // Communication level: all-reduce time relative to the ring bound (train_communication.cpp).
  const CommunicationLevel communication_level = train_communication_level(o, catalogs, colls, params, metrics);

  // Aggregator level: one row per run, composed from the lower levels.
  std::map<std::string, int> run_excluded = runs.excluded;
  std::vector<RunRow> rows = resolve_run_rows(runs, catalogs, run_excluded);
  const int workers = std::max(1, std::min(o.threads, 8));  // composing rows and training CV folds
  compose_run_rows(rows, {compute_level.model.get(), communication_level.model.get()}, workers);
  if (rows.size() < 30) throw InputError(runs.path, 0, 0, "", "fewer than 30 usable runs");
  o.log("aggregator rows: " + std::to_string(rows.size()));

  const AggregatorTable table(rows);
  if (!o.export_rows.empty()) export_aggregator_rows(o.export_rows, rows);
  const BoosterParams agg = aggregator_params(params);
  const ReportBlock report_block = run_error_report(table);
  metrics["runs"] = {{"rows", rows.size()}, {"total_rows", runs.total_rows}, {"excluded", run_excluded}};
  metrics["data"] = {{"runs", data_use(runs.total_rows, rows.size(), run_excluded)},
                     {"ops", data_use(ops.total_rows, compute_level.rows, compute_level.skipped)},
                     {"collectives", data_use(colls.total_rows, communication_level.rows, communication_level.skipped)}};
  for (const char* data_table : {"runs", "ops", "collectives"}) o.log(data_use_line(data_table, metrics["data"][data_table]));
  metrics["analytical"] = report_block(table.analytical);
  metrics["runs"]["compute_learned_share_mean"] = mean_learned_share(rows);
  // Held-out splits: shrinkage, bands, each split's figures (train_aggregator_cv.cpp).
  AggregatorCv cv;  // without cross-validation: the whole correction everywhere, zero-width bands
  if (o.cross_validate) cv = cross_validate_aggregator(o, rows, table, agg, workers, report_block, metrics);
  const std::string calibration_md =
      o.cross_validate ? evaluate_calibration_held_out(o, rows, table, agg, workers, cv.shrinkage, metrics) : std::string();
  std::string evaluations_md;
  if (const std::string memory_md = memory_report(o, catalogs, metrics); !memory_md.empty())
    evaluations_md += "\n## Memory estimate against published peaks (datasets/memory.csv)\n\n" + memory_md;
  if (const std::string energy_md = energy_report(o, metrics); !energy_md.empty())
    evaluations_md += "\n## Energy estimate against published power measurements (datasets/power.csv)\n" +
                      demote_headings(energy_md);
  metrics["interval"] = cv.interval;
  metrics["interval"]["method"] =
      "10 % / 90 % quantiles of the six splits' held-out log residuals, pooled by known / unknown codebase, what a known "
      "codebase's job has that no training run had (precision, GPU, model) and support (extrapolating, or the distance "
      "to the nearest training run)";

  // Final boosters on all rows.
  if (o.on_training_rows) o.on_training_rows("aggregator", o.blind ? table.blind_x : table.x);
  const StackFit final_aggregator =
      o.blind ? fit_stack_effects(table.blind_x, table.blind_y, table.codebases, run_feature_names(true), agg, table.blind_halves)
              : fit_stack_effects(table.x, table.y, table.codebases, run_feature_names(false), agg, table.halves);
  metrics["codebase_offsets"] = codebase_offsets_json(final_aggregator);
  if (metrics.contains("shrinkage")) metrics["shrinkage"]["typical_level"] = final_aggregator.level;
  const nlohmann::json training_data = {{"runs", runs.sha256}, {"ops", ops.sha256}, {"collectives", colls.sha256}};
  const std::map<std::string, std::string> files = {{"aggregator", final_aggregator.typical.save_ubj()},
                                                    {"compute", compute_level.bytes},
                                                    {"communication", communication_level.bytes}};
  write_bundle(o.out_dir, bundle_manifest(o, rows, table, compute_level, communication_level.reach, cv, final_aggregator, training_data, metrics), files);

  // Report: markdown, per-row predictions, plot (train_report.cpp).
  TrainResult result;
  result.metrics = metrics;
  const std::set<std::string> precisions_seen(table.precisions.begin(), table.precisions.end());
  result.report_markdown = report_markdown(o, rows.size(), runs.total_rows, compute_level.rows, communication_level.rows,
                                           metrics, precisions_seen, table.families, table.models, run_excluded, evaluations_md);
  write_report(o.out_dir, rows, table, cv.oof_columns, result.report_markdown, calibration_md);
  return result;
}

}  // namespace ptp::train
