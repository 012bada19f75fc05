#pragma once
// Calibration to the user's own stack: a few measured steps correct the physical parts of the
// predicted step, and the corrected parts carry to the jobs being predicted (other GPU counts, GPUs,
// precisions, batches, layouts).
//
// The step splits into four parts (step_parts): kernel time on the GEMM math mode, memory-bound
// kernel time (norms, softmax, elementwise, optimizer, loss scaling, casts), exposed communication,
// and host overhead. Each gets a factor, fitted in log space as a maximum a posteriori estimate:
//   log step = log( e^(c + g + g[math]) G + e^(c + m) M + C(e^(c + e)) + e^(c + h) H ),
//   C(f) = f E + max(0, f - 1) O
// where O is the communication the prediction overlaps with kernels: a slower fabric first uses up
// that overlap, then every extra second shows. c is the stack's factor on every part; g, m, e and h
// are how far GEMMs, memory-bound kernels, communication and host time depart from it, and g[math]
// how far one math class's GEMMs depart from the stack's other GEMMs.
//
// The factors are the stack's, not a job's: they are fitted once on the measured points and act on
// the physical parts of every predicted job, each computed at that job's GPU rates, layout and
// precision. That is what keeps physics: a calibration moves each term by one ratio to the
// roofline, so it cannot make scaling superlinear or a precision's speed-up larger than the
// uncalibrated parts make them.
// What the points can identify is what is fitted. One configuration (however many steps of it) is
// one number, so it fits c alone: every prediction moves by the same ratio, and GPU-count and
// precision ratios stay the uncalibrated ones exactly. Points at two or more configurations (GPU
// counts, batches, GPUs, precisions) fit the departures too, each with a prior that keeps it near
// the shared factor unless the points disagree; g[math] only when two math classes have points, so
// a GEMM factor measured on BF16 carries to FP8 as the stack's GEMM factor.
#include <map>
#include <string>
#include <vector>

#include "ptp/predict/prediction.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

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

// What a configuration is: points with different keys can separate the step's parts (and the
// calibration report groups pairs by what differs).
struct TransferKey {
  std::string gpu, precision, batch, layout;
  int num_gpus = 1;
  bool operator==(const TransferKey& o) const {
    return gpu == o.gpu && precision == o.precision && batch == o.batch && layout == o.layout && num_gpus == o.num_gpus;
  }
};
TransferKey transfer_key(const Prediction& p);

struct CalibrationPoint {
  std::string where;  // "MEASURED.csv:3" for messages; for a log, also its steady state in words
  StepParts parts;    // of the uncalibrated prediction
  double measured_s = 0;
  TransferKey key;
};

// Priors of the fit, sigmas in log space. The departures' sigmas come from ptp-train's calibration
// report (the within-stack variogram of held-out residuals; docs/constants.md has its figures).
struct CalibrationPriors {
  double stack = 1.0;            // sigma of c: nearly flat, the points decide the stack's factor
  double gemm = 0.1;             // sigma of g
  double gemm_class = 0.15;      // sigma of each g[math] (two math classes measured)
  double memory_bound = 0.1;     // sigma of m
  double communication = 0.7;    // sigma of e: fabrics and NCCL settings differ by 2x and more
  double host = 0.5;             // sigma of h
  double measurement = 0.0004;   // variance of one measured step against its configuration (2 %)
};

class CalibrationFit {
 public:
  int points = 0, configurations = 0;  // measured steps, and the distinct configurations they ran
  std::vector<std::string> sources;     // each point's `where`
  double log_stack = 0;                 // c
  double log_gemm = 0, log_memory_bound = 0, log_communication = 0, log_host = 0;  // g, m, e, h
  std::map<std::string, double> log_gemm_class;  // g[math], per math class with points (two or more classes)
  double fit_residual = 0, uncalibrated_residual = 0;  // RMS log error on the points (set by Calibrator)
  double fit_step_error = 0, uncalibrated_step_error = 0;  // RMS of predicted / measured - 1 (ditto)
  std::vector<std::string> warnings;

  double seconds(const StepParts& parts) const;  // the calibrated step
  // The factor on each part, named after it: gemm (every math class), gemm_<class> where a class
  // has its own, memory_bound_kernels, communication, host_overhead.
  std::vector<std::pair<std::string, double>> factors() const;
  std::string method() const;  // the identifier JSON and CSV carry; calibration_method_label() says it in words
  // Rescales the prediction's breakdown, step, band, throughput, MFU and totals, and records the
  // calibration in p.calibration.
  void apply(Prediction& p) const;
};

// The stack's factors from its measured points. Throws InputError when there is no point; warns
// (fit.warnings) when a factor leaves 1/4..4.
CalibrationFit fit_calibration(const std::vector<CalibrationPoint>& points, const CalibrationPriors& priors = {});

// The fit, with how well it does on its own points and what it warns about them.
class Calibrator {
 public:
  // `notes`: what reading the points warned about (a training log's caveats), shown with every prediction.
  explicit Calibrator(const std::vector<CalibrationPoint>& points, const std::vector<std::string>& notes = {},
                      const CalibrationPriors& priors = {});
  const CalibrationFit& fit() const { return fit_; }
  void apply(Prediction& p) const;  // fit().apply(p), then the energy that follows the new phase times
  double fit_residual() const { return fit_.fit_residual; }
  double uncalibrated_residual() const { return fit_.uncalibrated_residual; }
  double fit_step_error() const { return fit_.fit_step_error; }
  double uncalibrated_step_error() const { return fit_.uncalibrated_step_error; }
  const std::vector<std::string>& warnings() const { return fit_.warnings; }

 private:
  CalibrationFit fit_;
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

}  // namespace ptp::predict
