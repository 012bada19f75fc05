// --calibrate-log: which format a log is, which rank stream and run of it to read, and the steady
// state of its steps (training_log.hpp). The formats themselves are in training_log_formats.cpp.
#include "ptp/predict/training_log.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"
#include "steady_state.hpp"
#include "training_log_formats.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

const EnumNames<LogFormat>& log_format_names() {
  static const EnumNames<LogFormat> names{
      {LogFormat::megatron, "megatron",
       "Megatron-LM / Megatron-Bridge: 'elapsed time per iteration (ms)' per logged iteration"},
      {LogFormat::nemo, "nemo", "NeMo: 'train_step_timing in s' per step"},
      {LogFormat::torchtitan, "torchtitan", "torchtitan: 'tps' (tokens per second per GPU) per logged step"},
      {LogFormat::hf_trainer, "hf_trainer",
       "Hugging Face Trainer: the final train_steps_per_second (warm-up included)"},
      {LogFormat::lightning, "lightning", "PyTorch Lightning: the training progress bar's batches per second"},
      {LogFormat::mllog, "mllog", "MLPerf ':::MLLOG' lines: training block times per sample (evaluation excluded)"},
      {LogFormat::csv, "csv", "a CSV with a step_time_s column, one row per step"},
  };
  return names;
}

namespace {

using namespace training_log;

// A step line is a few hundred bytes: 64 MiB holds some 200 000 of them next to the start-up output.
// A bigger file wants cutting to the run to calibrate on.
constexpr std::size_t kMaxLogBytes = 64u << 20;
// Rank prefixes beyond this many are not ranks of one job (and each costs a reader).
constexpr std::size_t kMaxStreams = 65536;

// Streams ordered by their rank numbers ("[rank3]:" < "[rank12]:"), unprefixed lines first.
std::vector<long long> rank_numbers(const std::string& stream) {
  std::vector<long long> out;
  for (std::size_t i = 0; i < stream.size();) {
    if (stream[i] < '0' || stream[i] > '9') {
      ++i;
      continue;
    }
    const auto n = integer_at(stream, i);
    out.push_back(n.value_or(0));
    while (i < stream.size() && stream[i] >= '0' && stream[i] <= '9') ++i;
  }
  return out;
}

const LogFormatReader& sniff(const std::string& text, const std::string& path) {
  const auto& readers = log_format_readers();
  std::vector<bool> seen(readers.size(), false);
  bool first_line = true;
  for_each_log_line(text, path, [&](const LogLine& l) {
    for (std::size_t i = 0; i < readers.size(); ++i)
      if (!seen[i] && (first_line || !readers[i].first_line_only) && readers[i].signature(l.text)) seen[i] = true;
    first_line = false;
  });
  for (std::size_t i = 0; i < readers.size(); ++i)
    if (seen[i]) return readers[i];
  throw InputError(path, 0, 0, "",
                   "not a training log ptp reads: expected one of " + joined_names(names_of(log_format_names())) +
                       " (give --log-format)");
}

struct ChosenStream {
  std::string id;
  StreamSteps steps;
  int streams_with_steps = 0;
};

ChosenStream read_streams(const std::string& text, const LogFormatReader& r, const ReadContext& c, LogFacts& facts) {
  if (r.read_text) return {"", r.read_text(text, c), 1};
  std::map<std::string, std::unique_ptr<StreamReader>, std::less<>> readers;
  auto facts_reader = r.facts_reader ? r.facts_reader(c) : nullptr;
  for_each_log_line(text, c.path, [&](const LogLine& l) {
    if (facts_reader) facts_reader->line(l);
    auto it = readers.find(l.stream);
    if (it == readers.end()) {
      if (readers.size() >= kMaxStreams)
        l.fail(0, "", "more than " + std::to_string(kMaxStreams) + " rank prefixes: not the ranks of one job");
      it = readers.emplace(std::string(l.stream), r.stream_reader(c)).first;
    }
    it->second->line(l);
  });
  if (facts_reader) facts = facts_reader->finish();
  ChosenStream best;
  bool have = false;
  for (auto& [id, reader] : readers) {
    StreamSteps s = reader->finish();
    if (!s.steps.empty()) ++best.streams_with_steps;
    const bool better = !have || s.steps.size() > best.steps.steps.size() ||
                        (s.steps.size() == best.steps.steps.size() && rank_numbers(id) < rank_numbers(best.id));
    if (better) best.id = id, best.steps = std::move(s), have = true;
  }
  return best;
}

struct LastRun {
  std::vector<double> seconds;
  int runs = 1, from_line = 0;
};

// The steps of the last run: a new run starts at a boundary line or where the counter goes back;
// a repeated counter is the same step printed twice (a progress bar redrawn).
LastRun last_run(const StreamSteps& s, const LogFacts& facts) {
  std::vector<int> boundaries = facts.run_starts;
  boundaries.insert(boundaries.end(), s.run_starts.begin(), s.run_starts.end());
  std::sort(boundaries.begin(), boundaries.end());
  std::vector<std::pair<int, double>> run_steps;  // (run index, seconds)
  std::vector<int> run_first_line;
  std::size_t b = 0;
  int run = 0, boundary_line = 0;
  // The last step counter seen in this run (a plain pair: GCC 12 warns on an optional here).
  bool has_previous = false;
  long long previous = 0;
  for (const auto& step : s.steps) {
    while (b < boundaries.size() && boundaries[b] <= step.line)
      boundary_line = boundaries[b++], ++run, has_previous = false;
    if (step.counter && has_previous && *step.counter == previous) continue;
    if (step.counter && has_previous && *step.counter < previous) ++run, boundary_line = step.line;
    if (step.counter) has_previous = true, previous = *step.counter;
    if (run_first_line.empty() || run_steps.back().first != run)
      run_first_line.push_back(boundary_line ? boundary_line : step.line);
    run_steps.emplace_back(run, step.seconds);
  }
  LastRun out;
  out.runs = static_cast<int>(run_first_line.size()) + s.earlier_runs;
  out.from_line = s.earlier_runs && !s.run_starts.empty() ? s.run_starts.back() : run_first_line.back();
  for (const auto& [r, seconds] : run_steps)
    if (r == run_steps.back().first) out.seconds.push_back(seconds);
  return out;
}

}  // namespace

SteadyStep parse_training_log(const std::string& text, const std::string& path, std::optional<LogFormat> format,
                              const LogJobShape& shape) {
  if (text.find('\0') != std::string::npos) throw InputError(path, 0, 0, "", "binary data, expected a training log");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(path, 0, 0, "", "empty file, expected a training log");
  const LogFormatReader& reader = format ? reader_for(*format) : sniff(text, path);
  const ReadContext context{path, shape};
  LogFacts facts;
  ChosenStream chosen = read_streams(text, reader, context, facts);
  const char* name = name_of(log_format_names(), reader.format);
  if (chosen.steps.steps.empty())
    throw InputError(path, 0, 0, "",
                     std::string("no ") + name + " steps: expected a line like " + reader.expected +
                         (chosen.steps.why_none.empty() ? "" : "; found " + chosen.steps.why_none));
  SteadyStep out;
  out.format = reader.format;
  const LastRun run = last_run(chosen.steps, facts);
  std::vector<std::string> where;
  if (!chosen.id.empty())
    where.push_back("lines prefixed " + chosen.id +
                    (chosen.streams_with_steps > 1
                         ? " (the most steps of " + std::to_string(chosen.streams_with_steps) + " ranks logging steps)"
                         : ""));
  const std::string runs = run.runs > 1 ? "the last of " + std::to_string(run.runs) + " runs (from line " +
                                              std::to_string(run.from_line) + ")"
                                        : "";
  if (!runs.empty()) where.push_back(runs);
  for (const auto& w : where) out.stream += (out.stream.empty() ? "" : ", ") + w;
  if (chosen.steps.whole_run_average) {
    out.step_s = run.seconds.back();
    out.steps_logged = out.steps_used = 1;
  } else {
    const SteadyStats s = steady_state(run.seconds, path, runs.empty() ? "" : " in " + runs);
    out.step_s = s.step_s, out.spread = s.spread;
    out.steps_logged = s.logged, out.steps_dropped = s.dropped, out.steps_used = s.used;
    if (s.spread > 0.2)
      out.notes.push_back("the steady-state steps vary: (p90 - p10) / median = " + number_text(100 * s.spread) +
                          " % (data loading, evaluation or checkpoints in the timed steps?)");
  }
  std::map<std::string, LogSetting> settings;  // one per field: the last the log states
  for (const auto* list : {&facts.settings, &chosen.steps.settings})
    for (const auto& setting : *list) settings[setting.field] = setting;
  for (auto& [field, setting] : settings) out.settings.push_back(std::move(setting));
  std::sort(out.settings.begin(), out.settings.end(),
            [](const LogSetting& a, const LogSetting& b) { return a.line < b.line; });
  out.notes.insert(out.notes.begin(), chosen.steps.notes.begin(), chosen.steps.notes.end());
  return out;
}

SteadyStep read_training_log(const std::string& path, std::optional<LogFormat> format, const LogJobShape& shape) {
  return parse_training_log(read_text_file(path, kMaxLogBytes, "a training log"), path, format, shape);
}

SteadyStep steady_step_of(const std::vector<double>& seconds, const std::string& source) {
  for (std::size_t i = 0; i < seconds.size(); ++i)
    if (!(seconds[i] > 0) || !std::isfinite(seconds[i]))
      throw InputError(source + ": step " + std::to_string(i + 1) + " took " + std::to_string(seconds[i]) +
                       " s, expected a positive number of seconds");
  const training_log::SteadyStats s = training_log::steady_state(seconds, source, "");
  SteadyStep step;
  step.step_s = s.step_s;
  step.spread = s.spread;
  step.steps_logged = s.logged;
  step.steps_dropped = s.dropped;
  step.steps_used = s.used;
  return step;
}

}  // namespace ptp::predict
