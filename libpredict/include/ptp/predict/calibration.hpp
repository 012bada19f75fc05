#pragma once
// Calibration to the user's own stack: a few measured steps correct the physical parts of the
// predicted step, and the corrected parts carry to the jobs being predicted (other GPU counts, GPUs,
// precisions, batches, layouts).
//
// The step splits into four parts (step_parts): kernel time on the GEMM math mode, memory-bound
// kernel time (norms, softmax, elementwise, optimizer, loss scaling, casts), exposed communication,
// and host overhead. Each gets a factor, fitted in log space as a maximum a posteriori estimate:
//   log step = log( e^(c + g[math]) G + e^(c + m) M + C(e^e) + e^h H ),  C(f) = f E + max(0, f - 1) O
// where O is the communication the prediction overlaps with kernels: a slower fabric first uses up
// that overlap, then every extra second shows.
// c is the stack's kernel efficiency (every kernel), g[math] a further GEMM factor for each math
// class the points ran, m one for memory-bound kernels, e communication, h host overhead. A math
// class with no calibration point gets c but no g: a GEMM-efficiency correction measured on one math
// mode is never copied onto another.
//
// How far a measured point's correction carries depends on how far the predicted job is from it.
// On public data (ptp-train's calibration report: within-stack residuals of held-out predictions)
// the residual of two runs of one stack differs by little when only the GPU count or batch
// differs, and by a lot when the precision differs. So the fit is made for each predicted job: a
// point's noise is the variogram of the residual between its configuration and the job's
// (CalibrationPriors), so the same configuration is matched almost exactly and a far one moves the
// prediction only part of the way. c has a heavy-tailed (Student-t) prior: a small residual is
// mostly noise, a 2x one is the stack and carries everywhere.
#include <map>
#include <string>
#include <vector>

#include "ptp/predict/prediction.hpp"

namespace ptp {

struct StepParts {
  double gemm = 0, memory_bound = 0, communication = 0, host = 0;  // seconds per step, sum = the step
  std::string gemm_class;  // the math class the GEMM part runs on (gemm_math_class)
  // Communication the prediction hides behind kernels (not part of the step). Slower communication
  // first uses up this overlap: every extra second of it shows (communication_seconds).
  double communication_hidden = 0;
  double total() const { return gemm + memory_bound + communication + host; }
  // Every part, hidden communication included, at `k` times its length.
  void scale(double k) { gemm *= k, memory_bound *= k, communication *= k, host *= k, communication_hidden *= k; }
  // The exposed communication when all communication takes `factor` times as long.
  double communication_seconds(double factor) const {
    return factor * communication + (factor > 1 ? (factor - 1) * communication_hidden : 0.0);
  }
};

// "fp32", "tf32", "fp16_bf16", "fp8", "fp4": what a GEMM runs on under a precision id (FP16 and
// BF16 share tensor cores at one rate, so a point in either calibrates both).
std::string gemm_math_class(const std::string& precision_id);
StepParts step_parts(const Prediction& p);

// What a configuration is, for how far a calibration carries.
struct TransferKey {
  std::string gpu, precision, batch, layout;
  int num_gpus = 1;
};
TransferKey transfer_key(const Prediction& p);

struct CalibrationPoint {
  std::string where;  // "MEASURED.csv:3" for messages
  StepParts parts;    // of the uncalibrated prediction
  double measured_s = 0;
  TransferKey key;
};

// Variances in log space (squared log ratios). The transfer variances are the variogram of the
// shipped bundle's held-out residuals within public stacks (ptp-train's calibration report: half
// the mean squared difference of two runs' residuals, 2202 runs in 81 stacks): same configuration
// 0.004; only the GPU count differs 0.011, only the batch 0.0075, only the GPU type 0.011, only the
// precision 0.045 (as large as the residuals themselves: across precisions they barely correlate);
// the residual variance is 0.048, within a stack 0.028, of stack means 0.046.
struct CalibrationPriors {
  // c's prior was chosen on that report (pair-weighted MAPE over all pairs: scale 0.15/0.2/0.3 with
  // 5 degrees of freedom or nearly normal: 12.0/12.0/12.7 %; 3 degrees of freedom trust the
  // within-stack outliers of Lambda's BERT SQuAD rows and lose 1-3 points there).
  double stack_scale = 0.15;        // scale of the Student-t prior on c
  double stack_dof = 5;             // its degrees of freedom
  double gemm_class = 0.1;          // sigma of each g[math]
  double memory_bound = 0.1;        // sigma of m
  double communication = 0.7;       // sigma of e: fabrics and NCCL settings differ by 2x and more
  double host = 0.5;                // sigma of h
  double measurement = 0.0004;      // a measured step, same job (2 % step-to-step)
  double same_configuration = 0.004;  // two publications of one configuration
  double gpu_count = 0.007, batch = 0.0035, gpu_type = 0.007, precision = 0.041, layout = 0.004;
  double saturation = 0.06;         // no point is further than this from any job of its stack
  // The variance of (point residual - job residual), given what differs between them.
  double transfer_variance(const TransferKey& point, const TransferKey& job) const;
};

class CalibrationFit {
 public:
  int points = 0;
  double log_compute = 0, log_memory_bound = 0, log_communication = 0, log_host = 0;
  std::map<std::string, double> log_gemm;  // per math class with points
  double fit_residual = 0, uncalibrated_residual = 0;  // RMS log error on the points (set by Calibrator)
  double fit_step_error = 0, uncalibrated_step_error = 0;  // RMS of predicted / measured - 1 (ditto)
  std::vector<std::string> warnings;

  double seconds(const StepParts& parts) const;  // the calibrated step
  // Named after the parts they scale; a math class without points reports only the shared factor.
  std::vector<std::pair<std::string, double>> factors() const;
  std::string method() const;  // the identifier JSON and CSV carry; calibration_method_label() says it in words
  // Rescales the prediction's breakdown, step, band, throughput, MFU and totals, and records the
  // calibration in p.calibration.
  void apply(Prediction& p) const;
};

// The factors for one predicted job. Throws InputError when there is no point; warns
// (fit.warnings) when a factor leaves 1/4..4.
CalibrationFit fit_calibration(const std::vector<CalibrationPoint>& points, const TransferKey& job,
                               const CalibrationPriors& priors = {});

// Fits per predicted job and knows how well it does on its own points.
class Calibrator {
 public:
  explicit Calibrator(std::vector<CalibrationPoint> points, CalibrationPriors priors = {});
  CalibrationFit fit_for(const TransferKey& job) const;
  void apply(Prediction& p) const;  // fit_for(transfer_key(p)).apply(p), with the residuals on the points
  double fit_residual() const { return fit_residual_; }
  double uncalibrated_residual() const { return uncalibrated_residual_; }
  double fit_step_error() const { return fit_step_error_; }
  double uncalibrated_step_error() const { return uncalibrated_step_error_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  std::vector<CalibrationPoint> points_;
  CalibrationPriors priors_;
  double fit_residual_ = 0, uncalibrated_residual_ = 0;
  double fit_step_error_ = 0, uncalibrated_step_error_ = 0;
  std::vector<std::string> warnings_;
};

// MEASURED.csv: header with at least `job` and `step_time_s`; job paths resolve against the CSV's
// folder. Every problem is an InputError naming the file, line and column.
struct MeasuredStep {
  int line = 0;
  std::string job_path;  // resolved
  double step_time_s = 0;
};
std::vector<MeasuredStep> read_measured_steps(const std::string& csv_path);
std::vector<MeasuredStep> parse_measured_steps(const std::string& text, const std::string& csv_path);

}  // namespace ptp
