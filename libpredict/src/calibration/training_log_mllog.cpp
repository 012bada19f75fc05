// MLPerf Training's ":::MLLOG {json}" lines (mlperf_logging/mllog/mllog.py _encode_log: namespace,
// time_ms, event_type, key, value, metadata). The log times intervals, not steps: training blocks
// (block_start/block_stop, or epoch_start/epoch_stop) whose metadata say how many samples they
// trained, and evaluations (eval_start/eval_stop) that are not training time. A block's seconds per
// sample, times the global batch, is one step-time sample.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "ptp/vocab/error.hpp"
#include "training_log_formats.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::training_log {

namespace {

enum class Kind { run_start, block_start, block_stop, epoch_start, epoch_stop, eval_start, eval_stop };

struct Event {
  Kind kind;
  double time_s = 0;
  std::optional<double> samples_count, epoch_count;
  int line = 0, column = 0;
};

std::optional<double> number_in(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  const double v = j[key].get<double>();
  return v >= 0 && v < 1e18 ? std::optional<double>(v) : std::nullopt;
}

std::string integer_text(double v) {
  return v == std::floor(v) && v < 1e15 ? std::to_string(static_cast<long long>(v)) : number_text(v);
}

struct Interval {
  const Event* start;
  const Event* stop;
};

class MllogReader : public StreamReader {
 public:
  explicit MllogReader(const ReadContext& c) : c_(c) {}

  void line(const LogLine& l) override {
    const auto at = l.text.find(":::MLLOG");
    if (at == std::string_view::npos) return;
    const std::string_view body = l.text.substr(at + 8);
    const auto j = nlohmann::json::parse(body.begin(), body.end(), nullptr, false);
    if (j.is_discarded() || !j.is_object())
      l.fail(at, "MLLOG", "expected a JSON object after ':::MLLOG' (truncated line?)");
    if (!j.contains("key") || !j["key"].is_string()) l.fail(at, "MLLOG", "expected a \"key\" string");
    const std::string key = j["key"].get<std::string>();
    const nlohmann::json& value = j.contains("value") ? j["value"] : nlohmann::json();
    if (key == "global_batch_size" && value.is_number() && value.get<double>() > 0) {
      global_batch_ = value.get<double>();
      settings_["global_batch_size"] = {"global_batch_size", integer_text(*global_batch_), l.line};
    } else if ((key == "max_sequence_length" || key == "seq_len") && value.is_number()) {
      settings_["seq_len"] = {"seq_len", integer_text(value.get<double>()), l.line};
    } else if (key == "train_samples" && value.is_number()) {
      train_samples_ = value.get<double>();  // the dataset size when logged before the run (ResNet, SSD)
      train_samples_line_ = l.line;
    }
    static const std::pair<const char*, Kind> kKinds[] = {
        {"run_start", Kind::run_start},     {"block_start", Kind::block_start}, {"block_stop", Kind::block_stop},
        {"epoch_start", Kind::epoch_start}, {"epoch_stop", Kind::epoch_stop},   {"eval_start", Kind::eval_start},
        {"eval_stop", Kind::eval_stop}};
    for (const auto& [name, kind] : kKinds) {
      if (key != name) continue;
      const auto t = number_in(j, "time_ms");
      if (!t) l.fail(at, "time_ms", "expected a non-negative number of milliseconds on the " + key + " line");
      const nlohmann::json& meta = j.contains("metadata") ? j["metadata"] : nlohmann::json();
      events_.push_back(
          {kind, *t / 1000, number_in(meta, "samples_count"), number_in(meta, "epoch_count"), l.line, l.column(at)});
      if (kind == Kind::run_start)
        dataset_at_run_start_ = train_samples_ && train_samples_line_ < l.line ? train_samples_ : std::nullopt;
    }
  }

  StreamSteps finish() override {
    StreamSteps out;
    for (const auto& [field, s] : settings_) out.settings.push_back(s);
    std::size_t first = 0;
    int runs = 0;
    for (std::size_t i = 0; i < events_.size(); ++i)
      if (events_[i].kind == Kind::run_start) first = i, ++runs;
    if (runs > 1) {
      out.earlier_runs = runs - 1;
      out.run_starts.push_back(events_[first].line);
    }
    const bool blocks = has(first, Kind::block_stop);
    const auto intervals =
        pair_up(first, blocks ? Kind::block_start : Kind::epoch_start, blocks ? Kind::block_stop : Kind::epoch_stop);
    const auto evals = evaluations(first);
    double total_s = 0, total_samples = 0;
    double previous_stop_samples = 0;
    std::vector<std::pair<const Event*, double>> per_sample;  // (block_stop, seconds per sample)
    for (const auto& iv : intervals) {
      double samples = 0;
      if (iv.start->samples_count && iv.stop->samples_count)
        samples = *iv.stop->samples_count - *iv.start->samples_count;
      else if (iv.stop->samples_count)
        samples = *iv.stop->samples_count - previous_stop_samples;
      else if (dataset_at_run_start_)
        samples = *dataset_at_run_start_ * (blocks ? iv.start->epoch_count.value_or(0) : 1);
      if (iv.stop->samples_count) previous_stop_samples = *iv.stop->samples_count;
      const double train_s =
          iv.stop->time_s - iv.start->time_s - eval_overlap(evals, iv.start->time_s, iv.stop->time_s);
      if (!(samples > 0) || !(train_s > 0)) continue;
      per_sample.emplace_back(iv.stop, train_s / samples);
      total_s += train_s, total_samples += samples;
    }
    if (per_sample.empty()) {
      out.why_none =
          "no block_stop or epoch_stop with samples_count metadata (nor epoch_count with a train_samples "
          "dataset size logged before run_start): cannot tell how many samples a block trained";
      return out;
    }
    const double batch = global_batch_ ? *global_batch_ : c_.shape.global_batch_samples;
    const Event& where = *per_sample.front().first;
    if (!(batch > 0))
      throw InputError(c_.path, where.line, where.column, "global_batch_size",
                       "MLPerf logs time per sample, not per step: the log has no global_batch_size and the measured "
                       "job's global batch is needed");
    auto seconds = [&](const Event& e, double per) {
      const double s = per * batch;
      if (!(s > 0) || s > kMaxStepSeconds)
        throw InputError(c_.path, e.line, e.column, "block_stop", "a step of " + number_text(s) + " s is absurd");
      return s;
    };
    if (per_sample.size() >= 4) {
      for (const auto& [stop, per] : per_sample) out.steps.push_back({stop->line, seconds(*stop, per), {}});
    } else {
      out.whole_run_average = true;
      out.steps.push_back(
          {per_sample.back().first->line, seconds(*per_sample.back().first, total_s / total_samples), {}});
      out.notes.push_back(
          "MLPerf: " + std::to_string(per_sample.size()) +
          " timed training block(s), too few for the steady-state rule: their average is used, warm-up included");
    }
    out.notes.push_back(
        "MLPerf: seconds per step = training seconds per sample (evaluation excluded) x a global batch of " +
        integer_text(batch) + (global_batch_ ? " (the log's)" : " (the measured job's)"));
    return out;
  }

 private:
  bool has(std::size_t first, Kind k) const {
    for (std::size_t i = first; i < events_.size(); ++i)
      if (events_[i].kind == k) return true;
    return false;
  }

  std::vector<Interval> pair_up(std::size_t first, Kind start, Kind stop) const {
    std::vector<Interval> out;
    const Event* open = nullptr;
    for (std::size_t i = first; i < events_.size(); ++i) {
      if (events_[i].kind == start) open = &events_[i];
      if (events_[i].kind == stop && open) out.push_back({open, &events_[i]}), open = nullptr;
    }
    return out;
  }

  // The run's evaluations as disjoint (start, stop) seconds in order (overlapping ones merged).
  std::vector<std::pair<double, double>> evaluations(std::size_t first) const {
    std::vector<std::pair<double, double>> all, out;
    const Event* open = nullptr;
    for (std::size_t i = first; i < events_.size(); ++i) {
      if (events_[i].kind == Kind::eval_start) open = &events_[i];
      if (events_[i].kind == Kind::eval_stop && open) all.emplace_back(open->time_s, events_[i].time_s), open = nullptr;
    }
    std::sort(all.begin(), all.end());
    for (const auto& e : all) {
      if (!out.empty() && e.first <= out.back().second)
        out.back().second = std::max(out.back().second, e.second);
      else
        out.push_back(e);
    }
    return out;
  }

  // Evaluation time inside [from, to]: the evaluations are disjoint, so those ending after `from`
  // are the last ones starting before `to`.
  static double eval_overlap(const std::vector<std::pair<double, double>>& evals, double from, double to) {
    double s = 0;
    auto it = std::lower_bound(evals.begin(), evals.end(), std::pair<double, double>(to, -HUGE_VAL));
    while (it != evals.begin() && std::prev(it)->second > from) {
      --it;
      s += std::max(0.0, std::min(it->second, to) - std::max(it->first, from));
    }
    return s;
  }

  ReadContext c_;
  std::vector<Event> events_;
  std::optional<double> global_batch_, train_samples_, dataset_at_run_start_;
  int train_samples_line_ = 0;
  std::map<std::string, LogSetting> settings_;
};

}  // namespace

bool mllog_signature(std::string_view text) { return text.find(":::MLLOG {") != std::string_view::npos; }

std::unique_ptr<StreamReader> mllog_reader(const ReadContext& c) { return std::make_unique<MllogReader>(c); }

}  // namespace ptp::predict::training_log
