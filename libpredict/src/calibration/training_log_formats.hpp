#pragma once
// The format readers behind parse_training_log: one row per format (training_log_formats.cpp) with
// the line that gives the format away and the reader of its step times. A reader sees the lines of
// one rank stream and turns them into steps; training_log.cpp picks the stream and the run and
// applies the steady-state rule.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptp/predict/training_log.hpp"
#include "training_log_text.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::training_log {

struct LoggedStep {
  int line = 0;
  double seconds = 0;                // per optimizer step
  std::optional<long long> counter;  // the iteration the line reports, when it does
};

// What a reader found in one rank stream.
struct StreamSteps {
  std::vector<LoggedStep> steps;
  std::vector<int> run_starts;     // lines where a new run begins (the counter going back is seen anyway)
  int earlier_runs = 0;            // runs before the last that the reader left out itself
  bool whole_run_average = false;  // one figure over the whole run, warm-up included: no rule to apply
  std::vector<LogSetting> settings;
  std::vector<std::string> notes;
  std::string why_none;  // when there are no steps and the reader knows why
};

// What the lines of every rank together say: the run's settings and where runs begin (Megatron
// prints its arguments on rank 0 and its iterations on the last rank).
struct LogFacts {
  std::vector<LogSetting> settings;
  std::vector<int> run_starts;
};

struct ReadContext {
  std::string path;
  LogJobShape shape;
};

class LineReader {
 public:
  virtual ~LineReader() = default;
  virtual void line(const LogLine& l) = 0;
};

class StreamReader : public LineReader {
 public:
  virtual StreamSteps finish() = 0;
};

class FactsReader : public LineReader {
 public:
  virtual LogFacts finish() = 0;
};

struct LogFormatReader {
  LogFormat format;
  bool (*signature)(std::string_view text);  // a line (text after the rank prefix) only this format prints
  bool first_line_only;                      // the signature is the file's first line (a CSV header)
  const char* expected;                      // such a line, for "no steps" errors
  std::unique_ptr<StreamReader> (*stream_reader)(const ReadContext&);
  std::unique_ptr<FactsReader> (*facts_reader)(const ReadContext&);       // nullptr: none
  StreamSteps (*read_text)(const std::string& text, const ReadContext&);  // whole-file formats, no streams
};

const std::vector<LogFormatReader>& log_format_readers();  // in sniffing order: the first that matches wins
const LogFormatReader& reader_for(LogFormat format);

bool megatron_signature(std::string_view text);
std::unique_ptr<StreamReader> megatron_reader(const ReadContext& c);
std::unique_ptr<FactsReader> megatron_arguments_reader(const ReadContext& c);
bool nemo_signature(std::string_view text);
std::unique_ptr<StreamReader> nemo_reader(const ReadContext& c);
bool torchtitan_signature(std::string_view text);
std::unique_ptr<StreamReader> torchtitan_reader(const ReadContext& c);
bool hf_trainer_signature(std::string_view text);
std::unique_ptr<StreamReader> hf_trainer_reader(const ReadContext& c);
bool lightning_signature(std::string_view text);
std::unique_ptr<StreamReader> lightning_reader(const ReadContext& c);
bool mllog_signature(std::string_view text);
std::unique_ptr<StreamReader> mllog_reader(const ReadContext& c);
bool csv_signature(std::string_view text);
StreamSteps read_csv_steps(const std::string& text, const ReadContext& c);

// Adds `s` to `settings`, replacing an earlier value of its field: the last the log states counts.
void keep_last(std::vector<LogSetting>& settings, LogSetting s);

// tqdm's "n/total [" (or "n/? [") in a progress-bar line: n and the position after the '['.
struct TqdmCount {
  long long n = 0;
  std::size_t bracket_end = 0;
};
std::optional<TqdmCount> tqdm_count(std::string_view text);

}  // namespace ptp::predict::training_log
