// The measured points of a request (--calibrate MEASURED.csv rows, --calibrate-log training logs),
// each predicted as the job that was measured, before any --set or --sweep.
#include <cmath>

#include "ptp/predict/job_fields.hpp"
#include "ptp/predict/predict_session.hpp"
#include "ptp/predict/training_log.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

std::string number_as_text(double v) { return field_text(FieldValue{v}); }

// What the predicted job ran, under the job-field key a log states it with ("" when the job has no
// such value to compare).
std::string job_value(const std::string& field, const Prediction& p) {
  if (field == "global_batch_size") return number_as_text(std::round(p.samples_per_second * p.iteration_s));
  if (field == "seq_len") return p.seq_len > 0 ? std::to_string(p.seq_len) : "";
  if (field == "batch_size") return number_as_text(p.batch_size);
  if (field == "parallelism.tensor") return std::to_string(p.layout.tensor);
  if (field == "parallelism.pipeline") return std::to_string(p.layout.pipeline);
  if (field == "parallelism.context") return std::to_string(p.layout.context);
  if (field == "parallelism.expert") return std::to_string(p.layout.expert);
  if (field == "cluster.num_gpus") return std::to_string(p.num_gpus);
  return "";
}

bool same_number(const std::string& a, const std::string& b) {
  char* end_a = nullptr;
  char* end_b = nullptr;
  const double x = std::strtod(a.c_str(), &end_a), y = std::strtod(b.c_str(), &end_b);
  if (*end_a || *end_b || end_a == a.c_str() || end_b == b.c_str()) return a == b;
  return std::fabs(x - y) <= 1e-9 * std::max(std::fabs(x), std::fabs(y));
}

CalibrationPoint log_point(const std::string& log_path, const std::optional<LogFormat>& format, const PredictRequest& req,
                           const Predictor& predictor, LearnedMemo& memo, std::vector<std::string>& notes) {
  const std::string& job_file = req.job_files.front();
  const Prediction p = predictor.predict(load_request_job(req, 0), memo);
  LogJobShape shape;
  shape.global_batch_samples = p.samples_per_second * p.iteration_s;
  shape.tokens_per_sample = p.seq_len > 0 ? p.seq_len : 1;
  shape.num_gpus = p.num_gpus;
  shape.batches_per_step = std::max(1, p.grad_accum);
  const SteadyStep step = read_training_log(log_path, format, shape);
  // The log's own configuration is the run's: a job file that says otherwise describes another run.
  for (const auto& s : step.settings) {
    const std::string ran = job_value(s.field, p);
    if (!ran.empty() && !same_number(ran, s.value))
      throw InputError(log_path, s.line, 0, s.field,
                       "the log's run has " + s.value + ", the job " + job_file + " has " + ran +
                           ": calibrate with the job the log measured");
  }
  std::string where = log_path + " (" + std::string(name_of(log_format_names(), step.format)) + " log: median of " +
                      std::to_string(step.steps_used) + " steady steps of " + std::to_string(step.steps_logged) +
                      ", spread " + number_as_text(std::round(1000 * step.spread) / 10) + " %" +
                      (step.stream.empty() ? "" : ", " + step.stream) + ")";
  for (const auto& n : step.notes) notes.push_back(log_path + ": " + n);
  return {where, step_parts(p), step.step_s, transfer_key(p)};
}

}  // namespace

std::optional<Calibrator> calibrate_request(const PredictRequest& req, const Predictor& predictor) {
  std::vector<CalibrationPoint> points;
  std::vector<std::string> notes;
  LearnedMemo memo;
  if (!req.calibrate_path.empty())
    for (const auto& m : read_measured_steps(req.calibrate_path)) {
      const std::string where = req.calibrate_path + ":" + std::to_string(m.line);
      try {
        const Prediction p = predictor.predict(load_job_spec(m.job_path), memo);
        points.push_back({where, step_parts(p), m.step_time_s, transfer_key(p)});
      } catch (const InputError& e) {
        throw InputError(where + ": job: " + e.what());
      }
    }
  if (!req.calibrate_logs.empty()) {
    if (req.job_files.size() != 1)
      throw InputError("--calibrate-log: give the one job file the log measured (" + std::to_string(req.job_files.size()) +
                       " job files given); list several measured jobs in a --calibrate CSV instead");
    std::optional<LogFormat> format;
    if (!req.log_format.empty()) format = parse_named(log_format_names(), req.log_format, "--log-format");
    for (const auto& log : req.calibrate_logs) points.push_back(log_point(log, format, req, predictor, memo, notes));
  }
  if (points.empty()) return std::nullopt;
  return Calibrator(points, notes);
}

}  // namespace ptp::predict
