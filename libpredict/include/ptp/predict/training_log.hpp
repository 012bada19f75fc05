#pragma once
// A training log as a calibration point (--calibrate-log): the steady-state seconds per optimizer
// step of the run the log records, read from what the framework prints anyway, so nobody has to
// copy step times into a CSV by hand. docs/training-logs.md lists the lines each format reads.
//
// The steady-state rule (steady_state.cpp): of the n steps a log gives (a logged line that
// averages a log interval counts as one step), the first max(1, ceil(n / 10)) are warm-up, and so
// is every step right after them that is above 1.5x the median of the steps after the warm-up
// (compilation, allocator growth, a first checkpoint); at most n - 3 steps are dropped. The step
// time is the median of the rest, the spread their (p90 - p10) / median. Fewer than 4 steps is an
// error, except for a log that only has one figure averaged over the whole run (the Hugging Face
// Trainer's summary, an MLPerf log with fewer than 4 timed blocks), which is accepted with a note
// that it includes the warm-up.
//
// One log, one point: a log holding several runs (the step counter going back, a second Megatron
// arguments block, torchtitan's "Training starts at step", an MLPerf run_start) gives its last run;
// one holding several ranks' lines (prefixes such as "[rank3]:", "[default0]:", "3: ", "rank 3:")
// gives the rank with the most steps, the lowest rank on a tie. SteadyStep::stream says which, in
// words.
#include <optional>
#include <string>
#include <vector>

#include "ptp/vocab/enum_names.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

enum class LogFormat { megatron, nemo, torchtitan, hf_trainer, lightning, mllog, csv };
const EnumNames<LogFormat>& log_format_names();

// What the measured job says about a step, to turn a logged rate (tokens/s per GPU, samples/s,
// batches/s) into seconds per optimizer step.
struct LogJobShape {
  double global_batch_samples = 0;  // samples per optimizer step; 0 = unknown
  double tokens_per_sample = 1;     // the sequence length for a token model
  int num_gpus = 1;
  // Batches a progress bar counts per optimizer step (gradient accumulation): PyTorch Lightning's
  // bar advances once per batch, not per optimizer step.
  int batches_per_step = 1;
};

// A setting the log states about its own run, under the job-field key it corresponds to
// ("global_batch_size", "seq_len", "batch_size" (micro-batch), "parallelism.tensor",
// "parallelism.pipeline", "parallelism.context", "parallelism.expert", "cluster.num_gpus"), its value
// as text and the line it was read from.
struct LogSetting {
  std::string field;
  std::string value;
  int line = 0;
};

struct SteadyStep {
  LogFormat format = LogFormat::csv;
  double step_s = 0;  // median seconds per optimizer step over the steady-state steps
  double spread = 0;  // (p90 - p10) / median of those steps
  int steps_logged = 0, steps_dropped = 0, steps_used = 0;
  std::string stream;  // which rank stream and run were used when the log holds several ("" if one), in words
  std::vector<LogSetting> settings;
  std::vector<std::string> notes;  // warnings for the user, one line each
};

// `path` names the log in messages; `format` nullopt = recognise it from its lines. Every problem
// is an InputError naming the file, and the line and column where there is one.
SteadyStep parse_training_log(const std::string& text, const std::string& path, std::optional<LogFormat> format,
                              const LogJobShape& shape);
// The same on a file of at most 64 MiB; binary data is refused.
SteadyStep read_training_log(const std::string& path, std::optional<LogFormat> format, const LogJobShape& shape);
namespace training_log {
// At least this many steps must remain after the warm-up, so at least one more must be logged.
inline constexpr int kMinSteadySteps = 3;
}  // namespace training_log

// The steady state of steps a training loop timed itself (the Python StepTimer), by the warm-up rule
// a log's steps get; `source` names them in the error when too few are given.
SteadyStep steady_step_of(const std::vector<double>& seconds, const std::string& source);

}  // namespace ptp::predict
