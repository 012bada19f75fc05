// The Hugging Face Trainer's log: the dicts ProgressCallback/PrinterCallback print (str(logs)),
// per logging step {'loss': ..., 'learning_rate': ..., 'epoch': ...} and once at the end
// {'train_runtime': ..., 'train_samples_per_second': ..., 'train_steps_per_second': ..., ...}
// (trainer_utils.speed_metrics). Newer versions print the floats as strings ('0.37').
#include <algorithm>
#include <charconv>
#include <cmath>

#include "training_log_formats.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::training_log {

namespace {

// Per-step dicts carry no time unless a callback adds one; these are the names such callbacks use.
constexpr std::string_view kStepTimeKeys[] = {"'step_time':", "'train_step_time':", "'step_time_s':"};

// How far the printed value may be from the true one. speed_metrics rounds the runtime to 4 and the
// rates to 3 decimals (`floor`: half of that); newer loggers then print 4 significant digits
// ('{:.4g}'), which can cut more. A token shorter than 4 significant digits was not cut (Python
// drops trailing zeros), so only the rounding applies; a longer one may have been.
double printed_uncertainty(std::string_view token, double floor) {
  int decimals = 0, exponent = 0, significant = 0;
  const auto e = token.find_first_of("eE");
  const std::string_view mantissa = token.substr(0, e);
  if (const auto dot = mantissa.find('.'); dot != std::string_view::npos)
    decimals = static_cast<int>(mantissa.size() - dot - 1);
  bool leading = true;
  for (char c : mantissa)
    if (c >= '1' && c <= '9')
      leading = false, ++significant;
    else if (c == '0' && !leading)
      ++significant;
  if (e != std::string_view::npos) {
    std::string_view x = token.substr(e + 1);
    if (!x.empty() && x[0] == '+') x.remove_prefix(1);
    int v = 0;
    if (std::from_chars(x.data(), x.data() + x.size(), v).ec == std::errc()) exponent = std::clamp(v, -300, 300);
  }
  if (significant < 4) return floor;
  return std::max(floor, 0.5 * std::pow(10.0, exponent - decimals));
}

struct DictNumber {
  double value = 0, uncertainty = 0;  // uncertainty: how far the printed value may be off
  std::size_t at = 0;
};

std::optional<DictNumber> dict_number(const LogLine& l, std::string_view key, double floor = 0) {
  const auto k = l.text.find(key);
  if (k == std::string_view::npos) return std::nullopt;
  std::size_t p = skip_spaces(l.text, k + key.size());
  if (p < l.text.size() && l.text[p] == '\'') ++p;
  const std::string field(key.substr(1, key.size() - 3));
  const NumberAt n = number_at(l, p, field);
  return DictNumber{n.value, printed_uncertainty(l.text.substr(n.begin, n.end - n.begin), floor), n.begin};
}

class HfTrainerReader : public StreamReader {
 public:
  void line(const LogLine& l) override {
    read_setting(l, "Total train batch size (w. parallel, distributed & accumulation) =", "global_batch_size");
    read_setting(l, "Instantaneous batch size per device =", "batch_size");
    if (l.text.find("{'") == std::string_view::npos) return;
    const auto steps_per_second = dict_number(l, "'train_steps_per_second':", 5e-4);
    if (steps_per_second || l.text.find("'train_runtime':") != std::string_view::npos) {
      summary(l, steps_per_second);
      return;
    }
    for (const auto key : kStepTimeKeys)
      if (const auto t = dict_number(l, key)) {
        out_.steps.push_back(
            {l.line, checked_step_seconds(t->value, l, t->at, std::string(key.substr(1, key.size() - 3))), {}});
        return;
      }
  }

  StreamSteps finish() override {
    if (!out_.steps.empty()) return std::move(out_);  // per-step times: the steady-state rule applies
    if (!summary_) {
      out_.why_none =
          "no per-step time and no {'train_runtime': ..., 'train_steps_per_second': ...} summary (did the run finish?)";
      return std::move(out_);
    }
    out_.steps.push_back(*summary_);
    out_.whole_run_average = true;
    out_.notes.push_back("HF Trainer: train_steps_per_second averages the whole run, warm-up included");
    if (summaries_ > 1)
      out_.notes.push_back("HF Trainer: the log holds " + std::to_string(summaries_) +
                           " training summaries; the last (line " + std::to_string(summary_->line) + ") is used");
    if (!precision_note_.empty()) out_.notes.push_back(precision_note_);
    return std::move(out_);
  }

 private:
  void read_setting(const LogLine& l, std::string_view label, const char* field) {
    const auto at = l.text.find(label);
    if (at == std::string_view::npos) return;
    std::string digits;
    for (std::size_t p = skip_spaces(l.text, at + label.size()); p < l.text.size() && digits.size() < 16; ++p)
      if (l.text[p] >= '0' && l.text[p] <= '9')
        digits += l.text[p];
      else if (l.text[p] != ',')
        break;
    if (!digits.empty()) keep_last(out_.settings, {field, digits, l.line});
  }

  // 1 / train_steps_per_second is off by up to several percent for a slow run (0.037 is 3 decimals);
  // the runtime over the step count is exact whenever the printed digits pin the integer count down.
  void summary(const LogLine& l, const std::optional<DictNumber>& sps) {
    const std::string field = "train_steps_per_second";
    if (!sps) l.fail(0, field, "a training summary without train_steps_per_second: cannot tell the time per step");
    if (!(sps->value > 0)) l.fail(sps->at, field, "expected a positive number of steps per second");
    double seconds = 1 / sps->value;
    precision_note_.clear();
    const auto runtime = dict_number(l, "'train_runtime':", 5e-5);
    bool exact = false;
    if (runtime && runtime->value > 0) {
      const double lo = std::max(0.0, runtime->value - runtime->uncertainty) * (sps->value - sps->uncertainty);
      const double hi = (runtime->value + runtime->uncertainty) * (sps->value + sps->uncertainty);
      const double count = std::ceil(lo);
      if (count >= 1 && count <= hi && count + 1 > hi && count < 1e12) {
        seconds = runtime->value / count;
        exact = true;
      }
    }
    if (!exact && sps->uncertainty / sps->value > 0.01)
      precision_note_ = "HF Trainer: train_steps_per_second is printed to " + number_text(sps->value) +
                        ": the step time is known to +-" + number_text(100 * sps->uncertainty / sps->value) + " %";
    summary_ = LoggedStep{l.line, checked_step_seconds(seconds, l, sps->at, field), {}};
    ++summaries_;
  }

  StreamSteps out_;
  std::optional<LoggedStep> summary_;
  int summaries_ = 0;
  std::string precision_note_;
};

}  // namespace

bool hf_trainer_signature(std::string_view text) {
  if (text.find("{'") == std::string_view::npos) return false;
  return text.find("'train_runtime':") != std::string_view::npos ||
         text.find("'train_steps_per_second':") != std::string_view::npos ||
         (text.find("'loss':") != std::string_view::npos && text.find("'epoch':") != std::string_view::npos);
}

std::unique_ptr<StreamReader> hf_trainer_reader(const ReadContext&) { return std::make_unique<HfTrainerReader>(); }

}  // namespace ptp::predict::training_log
