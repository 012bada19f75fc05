// The format table, and the formats whose every step line states its own time: Megatron-LM,
// NeMo and torchtitan. What each prints is in docs/training-logs.md, with the upstream file read.
#include "training_log_formats.hpp"

#include <charconv>
#include <cmath>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::training_log {

namespace {

constexpr std::string_view kMegatronTime = "elapsed time per iteration (ms):";
constexpr std::string_view kNemoTime = "train_step_timing in s";
// A setting is a number; anything longer is not one of the values the job's fields take.
constexpr std::size_t kMaxSettingChars = 32;

// A counter or a setting, read leniently: a malformed one costs only restart detection, never the
// step time next to it.
std::optional<double> number_after(std::string_view text, std::string_view key) {
  const auto at = after_word(text, key);
  if (!at) return std::nullopt;
  std::size_t p = skip_spaces(text, *at);
  if (p < text.size() && (text[p] == '=' || text[p] == ':')) p = skip_spaces(text, p + 1);
  double v = 0;
  const auto r = std::from_chars(text.data() + p, text.data() + text.size(), v);
  if (r.ec != std::errc() || !std::isfinite(v) || v < 0 || v > 1e15) return std::nullopt;
  return v;
}

// The integer after the first `key` that has one (Megatron's "iteration" also ends "time per iteration").
std::optional<long long> counter_after(std::string_view text, std::string_view key) {
  for (auto at = after_word(text, key); at; at = after_word(text, key, *at))
    if (auto n = integer_at(text, *at)) return n;
  return std::nullopt;
}

class MegatronReader : public StreamReader {
 public:
  void line(const LogLine& l) override {
    const std::size_t at = l.text.find(kMegatronTime);
    if (at == std::string_view::npos) return;
    const std::string field = "elapsed time per iteration (ms)";
    const NumberAt ms = number_at(l, at + kMegatronTime.size(), field);
    // Megatron ends every field with " |": a line that stops after the number was cut mid-write.
    const std::size_t bar = skip_spaces(l.text, ms.end);
    if (bar >= l.text.size()) l.fail(ms.end, field, "the line ends after the number, expected ' |' (truncated line?)");
    if (l.text[bar] != '|')
      l.fail(bar, field, "expected ' |' after the number, got '" + excerpt(l.text.substr(bar)) + "'");
    out_.steps.push_back(
        {l.line, checked_step_seconds(ms.value / 1000, l, ms.begin, field), counter_after(l.text, "iteration")});
  }
  StreamSteps finish() override { return std::move(out_); }

 private:
  StreamSteps out_;
};

// "------------------------ arguments ------------------------", then "  name ..... value" lines
// (megatron/training/arguments.py _print_args), then "-------------------- end of arguments ----".
class MegatronArgumentsReader : public FactsReader {
 public:
  void line(const LogLine& l) override {
    const std::string_view t = l.text.substr(skip_spaces(l.text, 0));
    if (t.substr(0, 3) == "---") {
      if (t.find("end of arguments") != std::string_view::npos) {
        inside_ = false;
      } else if (t.find(" arguments ") != std::string_view::npos) {
        inside_ = true;
        facts_.settings.clear();  // a later block is a later run: its settings are the ones that count
        facts_.run_starts.push_back(l.line);
      }
      return;
    }
    if (!inside_) return;
    std::size_t name_end = 0;
    while (name_end < t.size() && t[name_end] != ' ') ++name_end;
    const std::string_view name = t.substr(0, name_end);
    std::size_t v = name_end;
    while (v < t.size() && (t[v] == ' ' || t[v] == '.')) ++v;
    std::string_view value = t.substr(v);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    for (const auto& [argument, field] : kFields)
      if (name == argument && !value.empty() && value.size() <= kMaxSettingChars && value != "None")
        keep_last(facts_.settings, {field, std::string(value), l.line});
  }
  LogFacts finish() override { return std::move(facts_); }

 private:
  static constexpr std::pair<std::string_view, const char*> kFields[] = {
      {"global_batch_size", "global_batch_size"},
      {"seq_length", "seq_len"},
      {"micro_batch_size", "batch_size"},
      {"tensor_model_parallel_size", "parallelism.tensor"},
      {"pipeline_model_parallel_size", "parallelism.pipeline"},
      {"context_parallel_size", "parallelism.context"},
      {"expert_model_parallel_size", "parallelism.expert"},
      {"world_size", "cluster.num_gpus"},
  };
  bool inside_ = false;
  LogFacts facts_;
};

// NeMo 2's progress printer ("Training epoch 0, iteration 9/99 | ... | train_step_timing in s: 1.23"),
// NeMo 1's progress bar ("... global_step=99.00, ..., train_step_timing in s=3.130]") and
// DeltaTimingCallback ("Step 12: train_step_timing in s=1.2345").
class NemoReader : public StreamReader {
 public:
  void line(const LogLine& l) override {
    const std::size_t at = l.text.find(kNemoTime);
    if (at == std::string_view::npos) return;
    std::size_t p = skip_spaces(l.text, at + kNemoTime.size());
    // wandb's summary and sparkline rows name the metric without '=' or ':'.
    if (p >= l.text.size() || (l.text[p] != '=' && l.text[p] != ':')) return;
    p = skip_spaces(l.text, p + 1);
    // A bar drawn before the first step has the key with no value ("train_step_timing in s=]").
    if (p >= l.text.size() || l.text[p] == ',' || l.text[p] == ']' || l.text[p] == '|') return;
    const std::string field(kNemoTime);
    const NumberAt s = number_at(l, p, field);
    std::optional<long long> counter;
    if (const auto g = number_after(l.text, "global_step"))
      counter = static_cast<long long>(std::llround(*g));
    else if (const auto i = counter_after(l.text, "iteration"))
      counter = i;
    else if (const auto st = counter_after(l.text, "Step"))
      counter = st;
    else if (const auto bar = tqdm_count(l.text))
      counter = bar->n;
    out_.steps.push_back({l.line, checked_step_seconds(s.value, l, s.begin, field), counter});
    if (const auto gbs = number_after(l.text, "global_batch_size"))
      global_batch_ = LogSetting{"global_batch_size", std::to_string(std::llround(*gbs)), l.line};
  }
  StreamSteps finish() override {
    if (global_batch_) out_.settings.push_back(*global_batch_);
    return std::move(out_);
  }

 private:
  StreamSteps out_;
  std::optional<LogSetting> global_batch_;
};

// torchtitan's MetricsProcessor.log: "step: 10  loss: 7.1234  ...  tps: 6,543  tflops: ...", in
// colour on a terminal; before November 2024 the rate was "wps:". tps is tokens per second per
// GPU, averaged over the steps since the previous line.
class TorchtitanReader : public StreamReader {
 public:
  explicit TorchtitanReader(const ReadContext& c) : shape_(c.shape) {}
  void line(const LogLine& l) override {
    if (l.text.find("Training starts at step") != std::string_view::npos) out_.run_starts.push_back(l.line);
    if (!torchtitan_signature(l.text)) return;
    auto rate = after_word(l.text, "tps:");
    if (!rate) rate = after_word(l.text, "wps:");
    const std::string field = "tps";
    const NumberAt tps = number_at(l, *rate, field, true);
    if (!(tps.value > 0)) l.fail(tps.begin, field, "expected a positive number of tokens per second");
    if (!(shape_.global_batch_samples > 0) || !(shape_.tokens_per_sample > 0) || shape_.num_gpus < 1)
      l.fail(tps.begin, field,
             "torchtitan logs a rate (tokens per second per GPU), not a step time: the measured job "
             "(its global batch, sequence length and GPU count) is needed to convert it");
    const double tokens_per_gpu = shape_.global_batch_samples * shape_.tokens_per_sample / shape_.num_gpus;
    out_.steps.push_back({l.line, checked_step_seconds(tokens_per_gpu / tps.value, l, tps.begin, field),
                          counter_after(l.text, "step:")});
  }
  StreamSteps finish() override {
    if (!out_.steps.empty())
      out_.notes.push_back("torchtitan: tps (tokens per second per GPU) taken as " +
                           number_text(shape_.global_batch_samples) + " samples x " +
                           number_text(shape_.tokens_per_sample) + " tokens per step over " +
                           std::to_string(shape_.num_gpus) + " GPUs (the measured job's)");
    return std::move(out_);
  }

 private:
  LogJobShape shape_;
  StreamSteps out_;
};

}  // namespace

bool megatron_signature(std::string_view text) { return text.find(kMegatronTime) != std::string_view::npos; }
bool nemo_signature(std::string_view text) { return text.find(kNemoTime) != std::string_view::npos; }
bool torchtitan_signature(std::string_view text) {
  const auto step = after_word(text, "step:");
  if (!step || (*step >= 14 && text.substr(*step - 14, 9) == "validate ")) return false;
  return after_word(text, "tps:", *step) || after_word(text, "wps:", *step);
}

std::unique_ptr<StreamReader> megatron_reader(const ReadContext&) { return std::make_unique<MegatronReader>(); }
std::unique_ptr<FactsReader> megatron_arguments_reader(const ReadContext&) {
  return std::make_unique<MegatronArgumentsReader>();
}
std::unique_ptr<StreamReader> nemo_reader(const ReadContext&) { return std::make_unique<NemoReader>(); }
std::unique_ptr<StreamReader> torchtitan_reader(const ReadContext& c) { return std::make_unique<TorchtitanReader>(c); }

std::optional<TqdmCount> tqdm_count(std::string_view text) {
  for (auto at = text.find(" ["); at != std::string_view::npos; at = text.find(" [", at + 1)) {
    std::size_t i = at;
    while (i > 0 && ((text[i - 1] >= '0' && text[i - 1] <= '9') || text[i - 1] == '?')) --i;
    if (i == at || i == 0 || text[i - 1] != '/') continue;
    std::size_t n_begin = i - 1;
    while (n_begin > 0 && text[n_begin - 1] >= '0' && text[n_begin - 1] <= '9') --n_begin;
    if (n_begin == i - 1) continue;
    if (const auto n = integer_at(text, n_begin)) return TqdmCount{*n, at + 2};
  }
  return std::nullopt;
}

void keep_last(std::vector<LogSetting>& settings, LogSetting s) {
  for (auto& existing : settings)
    if (existing.field == s.field) {
      existing = std::move(s);
      return;
    }
  settings.push_back(std::move(s));
}

const std::vector<LogFormatReader>& log_format_readers() {
  // Frameworks that print a time per step come before those that print a rate or an average, so
  // an MLPerf log from a Megatron or NeMo run is read by its steps.
  static const std::vector<LogFormatReader> readers{
      {LogFormat::megatron, megatron_signature, false,
       "' iteration 20/ 500 | consumed samples: 2560 | elapsed time per iteration (ms): 1234.5 | ...'", megatron_reader,
       megatron_arguments_reader, nullptr},
      {LogFormat::nemo, nemo_signature, false,
       "'... | global_step: 9 | ... | train_step_timing in s: 1.234' or '... train_step_timing in s=1.234]'",
       nemo_reader, nullptr, nullptr},
      {LogFormat::torchtitan, torchtitan_signature, false,
       "'step: 10  loss:  7.1234  memory: 30.12GiB(38.05%)  tps: 6,543  tflops: 301.23  mfu: 30.50%'",
       torchtitan_reader, nullptr, nullptr},
      {LogFormat::hf_trainer, hf_trainer_signature, false,
       "\"{'train_runtime': 123.4, 'train_samples_per_second': 45.6, 'train_steps_per_second': 0.37, ...}\"",
       hf_trainer_reader, nullptr, nullptr},
      {LogFormat::lightning, lightning_signature, false,
       "'Epoch 0:  45%|####5     | 450/1000 [01:23<01:42,  5.38it/s, v_num=0]'", lightning_reader, nullptr, nullptr},
      {LogFormat::mllog, mllog_signature, false,
       "':::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000000000, ..., \"key\": \"block_stop\", ...}'", mllog_reader,
       nullptr, nullptr},
      {LogFormat::csv, csv_signature, true, "a CSV header with a step_time_s column ('step,step_time_s')", nullptr,
       nullptr, read_csv_steps},
  };
  return readers;
}

const LogFormatReader& reader_for(LogFormat format) {
  for (const auto& r : log_format_readers())
    if (r.format == format) return r;
  return log_format_readers().front();  // unreachable: the table has every format (tested)
}

}  // namespace ptp::predict::training_log
