#pragma once
// What `ptp-predict` does, as a library call: load jobs, expand sweeps, predict (learned bundle when
// present, else analytical), render, and decide the exit code against budgets.
#include <optional>
#include <string>
#include <vector>

#include "ptp/predict/calibration.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/output.hpp"
#include "ptp/predict/predictor.hpp"
#include "ptp/predict/search.hpp"
#include "ptp/vocab/exit_codes.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
};
SweepAxis parse_sweep_axis(const std::string& text);  // "precision=fp32,amp_fp16"

struct PredictRequest {
  std::vector<std::string> job_files;
  // Empty, or the YAML text of each job (the Python package's dicts and strings): job_files[i] then
  // only names it in messages, and relative paths in it resolve against the working directory.
  std::vector<std::string> job_texts;
  std::vector<Override> overrides;
  std::vector<SweepAxis> sweeps;
  std::string format = "table";  // a name in output_formats()
  std::optional<double> max_hours, max_cost;
  std::optional<double> max_kwh;  // facility kWh of the run (energy.hpp)
  // --require-fit: exit kExitDoesNotFit when a row (the best row of a search) does not fit in memory
  // with kMemoryHeadroom to spare.
  bool require_fit = false;
  std::string trace_path;
  // MEASURED.csv (--calibrate): measured steps of jobs like these; the fit corrects every prediction.
  // --set and --sweep edit the predicted jobs only: the CSV's jobs are what was measured.
  std::string calibrate_path;
  // Training logs (--calibrate-log, repeatable) of the first job file as written, before --set and
  // --sweep; `log_format` unset: recognised from the lines (training_log.hpp).
  std::vector<std::string> calibrate_logs;
  std::string log_format;
  // --search: rank the configurations of a space around the (one) job instead of predicting it.
  bool search = false;
  SearchOptions search_options;
  // Threads of a sweep or a search (each with its own caches); rows are the same at any count.
  int threads = 1;
  bool verbose = false;  // --verbose: the session's cache hit rates on stderr (prediction_caches.hpp)
};

struct PredictOutcome {
  std::string stdout_text;
  std::vector<std::string> stderr_lines;  // budget verdicts and notices
  int exit_code = kExitOk;                // kExitOverBudget, kExitDoesNotFit, kExitBadInput (a bad file of several)
  std::string trace_json;                 // filled when a trace was requested
};

// Predictions one run may make (job files x sweep combinations): each costs ~1-3 ms and a few KB until
// rendering, so 10^5 is minutes and a few hundred MB; 10^6 was most of an hour and gigabytes.
constexpr std::size_t kMaxSweepPoints = 100'000;

PredictOutcome run_predictions(const PredictRequest& request, const Predictor& predictor);

// Job i of a request as read: its file, or its text when the request carries texts.
YamlReader read_job_document(const PredictRequest& request, std::size_t i);
JobSpec load_request_job(const PredictRequest& request, std::size_t i, const std::vector<Override>& overrides = {});

// The calibration points of a request: each MEASURED.csv row, and each training log of the first job
// file (its steady-state step, its stated settings checked against the job); nullopt when none.
std::optional<Calibrator> calibrate_request(const PredictRequest& request, const Predictor& predictor);

// --max-hours / --max-cost against these predictions: exit code 3 and a verdict line per overrun.
void check_budgets(const PredictRequest& request, const std::vector<const Prediction*>& predictions,
                   PredictOutcome& out);
// --require-fit against these predictions: exit code 4 and a line naming each row and its memory.
void check_fit(const PredictRequest& request, const std::vector<const Prediction*>& predictions, PredictOutcome& out);
// "" when the prediction fits in its GPU with the headroom to spare, else "80.1 GiB per GPU > 76.0 GiB (...)".
std::string memory_verdict(const Prediction& p);
// The --search branch of run_predictions (search/search_session.cpp); budgets apply to the best row.
PredictOutcome run_search_request(const PredictRequest& request, const Predictor& predictor,
                                  const Calibrator* calibration);

}  // namespace ptp::predict
