// PyTorch Lightning's TQDMProgressBar: "Epoch 0:  45%|####5     | 450/1000 [01:23<01:42,  5.38it/s, v_num=0]"
// (BAR_FORMAT with rate_noinv_fmt since Lightning 2.1; before it tqdm's rate_fmt, "1.23s/it" when
// slower than one batch a second). The training bar runs with smoothing=0 and is reset at each
// epoch, so its rate is the average since the epoch began, warm-up included: the time per batch
// of a stretch of the epoch is the difference of the elapsed times the updates imply.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "ptp/vocab/error.hpp"
#include "training_log_formats.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::training_log {

namespace {

// Up to this many stretches per epoch: enough for a median and a spread, long enough that the
// printed digits of the rate (2 decimals) and of the elapsed time (whole seconds) do not matter.
constexpr long long kStretchesPerEpoch = 20;
constexpr double kStretchOverRounding = 20;

struct BarUpdate {
  long long epoch = 0, n = 0;
  double elapsed_s = 0, error_s = 0;  // seconds since the epoch began, and how far off the printed digits allow
  int line = 0, column = 0;
};

struct Rate {
  double value = 0, half_ulp = 0;
  bool seconds_per_batch = false;
  std::size_t at = 0;
};

std::optional<Rate> rate_of(std::string_view t, std::size_t from) {
  for (const std::string_view unit : {"it/s", "s/it"}) {
    for (auto u = t.find(unit, from); u != std::string_view::npos; u = t.find(unit, u + 1)) {
      std::size_t b = u;
      while (b > from && ((t[b - 1] >= '0' && t[b - 1] <= '9') || t[b - 1] == '.')) --b;
      if (b == u) continue;  // "?it/s": no rate before the second update
      Rate r;
      r.seconds_per_batch = unit == "s/it";
      r.at = b;
      const std::string_view digits = t.substr(b, u - b);
      const auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), r.value);
      if (parsed.ec != std::errc() || parsed.ptr != digits.data() + digits.size()) return std::nullopt;
      const auto dot = digits.find('.');
      r.half_ulp =
          0.5 * std::pow(10.0, dot == std::string_view::npos ? 0.0 : -static_cast<double>(digits.size() - dot - 1));
      return r;
    }
  }
  return std::nullopt;
}

// tqdm's format_interval: "MM:SS" or "H:MM:SS", whole seconds, truncated.
std::optional<double> elapsed_of(std::string_view t, std::size_t from) {
  double seconds = 0;
  int fields = 0;
  std::size_t p = from;
  while (fields < 3) {
    const auto v = integer_at(t, p);
    if (!v || *v > 1'000'000) return std::nullopt;
    seconds = seconds * 60 + static_cast<double>(*v);
    ++fields;
    while (p < t.size() && t[p] >= '0' && t[p] <= '9') ++p;
    if (p >= t.size() || t[p] != ':') break;
    ++p;
  }
  return fields >= 2 ? std::optional<double>(seconds) : std::nullopt;
}

class LightningReader : public StreamReader {
 public:
  explicit LightningReader(const ReadContext& c)
      : path_(c.path), batches_per_step_(std::max(1, c.shape.batches_per_step)) {}

  void line(const LogLine& l) override {
    if (!lightning_signature(l.text)) return;
    const std::size_t e = skip_spaces(l.text, 0) + 6;  // after "Epoch "
    const auto epoch = integer_at(l.text, e);
    const auto bar = tqdm_count(l.text);
    if (!epoch || !bar) return;
    const auto rate = rate_of(l.text, bar->bracket_end);
    if (!rate) return;
    BarUpdate u{*epoch, bar->n, 0, 0, l.line, l.column(rate->at)};
    // The rate's two decimals and the elapsed time's whole seconds: whichever pins the time closer.
    const double rate_error = rate->value > 0 ? rate->half_ulp / rate->value : INFINITY;
    const double from_rate = rate->seconds_per_batch ? u.n * rate->value : (rate->value > 0 ? u.n / rate->value : 0);
    u.elapsed_s = from_rate;
    u.error_s = from_rate * rate_error;
    if (const auto elapsed = elapsed_of(l.text, bar->bracket_end)) {
      const double mid = *elapsed + 0.5;
      if (!(rate_error < 0.5 / mid)) u.elapsed_s = mid, u.error_s = 0.5;
    }
    if (!std::isfinite(u.elapsed_s) || !std::isfinite(u.error_s)) return;
    updates_.push_back(u);
  }

  StreamSteps finish() override {
    StreamSteps out;
    std::size_t bar_begin = 0;
    for (std::size_t i = 1; i <= updates_.size(); ++i) {
      const bool new_bar =
          i == updates_.size() || updates_[i].epoch != updates_[i - 1].epoch || updates_[i].n < updates_[i - 1].n;
      if (!new_bar) continue;
      if (i < updates_.size() && (updates_[i].epoch < updates_[i - 1].epoch ||
                                  (updates_[i].epoch == updates_[i - 1].epoch && updates_[i].n < updates_[i - 1].n)))
        out.run_starts.push_back(updates_[i].line);
      stretches(bar_begin, i, out);
      bar_begin = i;
    }
    if (!out.steps.empty() && batches_per_step_ == 1)
      out.notes.push_back(
          "Lightning: the progress bar counts batches; with accumulate_grad_batches > 1 an optimizer step is several "
          "(taken as one: the job's gradient accumulation was not given)");
    if (out.steps.empty() && !updates_.empty())
      out.why_none = "the progress bar updates are too few or too close together to time a stretch of batches";
    return out;
  }

 private:
  // One epoch's updates [from, to) into stretches of about a twentieth of the epoch each.
  void stretches(std::size_t from, std::size_t to, StreamSteps& out) const {
    const long long last_n = updates_[to - 1].n;
    const long long span = std::max(1LL, last_n / kStretchesPerEpoch);
    BarUpdate start{};  // the epoch's start: n = 0 at time 0
    for (std::size_t i = from; i < to; ++i) {
      const BarUpdate& u = updates_[i];
      if (u.n - start.n < span || u.elapsed_s - start.elapsed_s < kStretchOverRounding * (u.error_s + start.error_s))
        continue;
      const double seconds =
          (u.elapsed_s - start.elapsed_s) / static_cast<double>(u.n - start.n) * static_cast<double>(batches_per_step_);
      if (!(seconds > 0) || seconds > kMaxStepSeconds)
        throw InputError(path_, u.line, u.column, "rate", "a step of " + number_text(seconds) + " s is absurd");
      out.steps.push_back({u.line, seconds, {}});
      start = u;
    }
  }

  std::string path_;
  int batches_per_step_ = 1;
  std::vector<BarUpdate> updates_;
};

}  // namespace

bool lightning_signature(std::string_view text) {
  const std::size_t p = skip_spaces(text, 0);
  if (text.substr(p, 6) != "Epoch " || !integer_at(text, p + 6)) return false;
  if (text.find("train_step_timing") != std::string_view::npos) return false;  // NeMo's bar
  const auto bar = tqdm_count(text);
  return bar && rate_of(text, bar->bracket_end).has_value();
}

std::unique_ptr<StreamReader> lightning_reader(const ReadContext& c) { return std::make_unique<LightningReader>(c); }

}  // namespace ptp::predict::training_log
