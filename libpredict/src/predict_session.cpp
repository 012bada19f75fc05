#include "ptp/predict/predict_session.hpp"

#include <cstdio>
#include <sstream>

#include "ptp/predict/calibration.hpp"
#include "ptp/predict/launch_import.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"

namespace ptp {

SweepAxis parse_sweep_axis(const std::string& text) {
  auto [key, list] = parse_override(text);
  SweepAxis axis{key, {}};
  std::stringstream ss(list);
  for (std::string v; std::getline(ss, v, ',');) {
    if (v.empty()) throw InputError("--sweep '" + text + "': empty value in the list");
    axis.values.push_back(v);
  }
  if (axis.values.empty()) throw InputError("--sweep '" + text + "': expected key=v1,v2,...");
  return axis;
}

namespace {

constexpr long long kMaxTraceEvents = 250'000;  // ~30 MB of trace JSON; real models need < 20000

std::vector<std::vector<Override>> expand_sweeps(const std::vector<SweepAxis>& axes, std::size_t jobs) {
  double points = static_cast<double>(jobs);  // every job file gets every combination
  for (const auto& a : axes) points *= static_cast<double>(a.values.size());
  if (points > static_cast<double>(kMaxSweepPoints)) {
    char count[32];  // may be far beyond any integer type (2^200 for 200 two-value axes)
    std::snprintf(count, sizeof count, points < 1e15 ? "%.0f" : "%.3g", points);
    throw InputError(std::string("--sweep: ") + count + " predictions (job files x combinations) exceed the limit of " +
                     std::to_string(kMaxSweepPoints));
  }
  std::vector<std::vector<Override>> combos{{}};
  for (const auto& a : axes) {
    std::vector<std::vector<Override>> next;
    next.reserve(combos.size() * a.values.size());
    for (const auto& c : combos)
      for (const auto& v : a.values) {
        auto extended = c;
        extended.emplace_back(a.key, v);
        next.push_back(std::move(extended));
      }
    combos = std::move(next);
  }
  return combos;
}

}  // namespace

std::string memory_verdict(const Prediction& p) {
  const double usable = p.memory.capacity_bytes * (1 - kMemoryHeadroom);
  if (p.memory.per_gpu_bytes <= usable) return "";
  char text[160];
  std::snprintf(text, sizeof text, "%.1f GiB per GPU > %.1f GiB (%.0f GiB less the %.0f %% headroom)",
                p.memory.per_gpu_bytes / kBytesPerGiB, usable / kBytesPerGiB, p.memory.capacity_bytes / kBytesPerGiB,
                100 * kMemoryHeadroom);
  return text;
}

namespace {
std::string row_label(const Prediction& p) {
  std::string label = p.job_file.empty() ? std::string() : p.job_file + ": ";
  label += p.model + " " + p.precision + " " + std::to_string(p.num_gpus) + "x" + p.gpu;
  if (!p.set_flags.empty()) {
    label += " (";
    for (std::size_t i = 0; i < p.set_flags.size(); ++i) label += (i ? " " : "") + p.set_flags[i];
    label += ")";
  }
  return label;
}

}  // namespace

void check_fit(const PredictRequest& req, const std::vector<const Prediction*>& predictions, PredictOutcome& out) {
  if (!req.require_fit) return;
  for (const Prediction* p : predictions) {
    if (!p->valid) continue;
    const std::string why = memory_verdict(*p);
    if (why.empty()) continue;
    out.exit_code = kExitDoesNotFit;
    out.stderr_lines.push_back("does not fit: " + row_label(*p) + ": " + why);
  }
}

void check_budgets(const PredictRequest& req, const std::vector<const Prediction*>& predictions, PredictOutcome& out) {
  for (const Prediction* pp : predictions) {
    const auto& p = *pp;
    if (!p.valid) continue;
    const std::string label = row_label(p);
    if (req.max_hours) {
      if (p.total_steps <= 0) throw InputError("--max-hours needs a run: (steps | epochs + dataset_size | tokens) in the job");
      const double hours = p.total_seconds / 3600;
      if (hours > *req.max_hours) {
        out.exit_code = kExitOverBudget;
        out.stderr_lines.push_back("over budget: " + label + " needs " + std::to_string(hours) + " h > --max-hours " +
                                   std::to_string(*req.max_hours));
      }
    }
    if (req.max_kwh) {
      if (p.total_steps <= 0 || !p.energy.valid)
        throw InputError("--max-kwh needs a run: (steps | epochs + dataset_size | tokens) in the job and a GPU with tdp_w");
      if (p.energy.facility_kwh > *req.max_kwh) {
        out.exit_code = kExitOverBudget;
        out.stderr_lines.push_back("over budget: " + label + " needs " + std::to_string(p.energy.facility_kwh) +
                                   " kWh (facility) > --max-kwh " + std::to_string(*req.max_kwh));
      }
    }
    if (req.max_cost) {
      if (p.total_steps <= 0) throw InputError("--max-cost needs run: (steps | epochs + dataset_size | tokens) in the job");
      if (!p.has_cost)
        throw InputError("--max-cost: no price for " + p.gpu +
                         " (its catalog file has no price:); set cost.usd_per_gpu_hour in the job");
      if (p.cost_usd > *req.max_cost) {
        out.exit_code = kExitOverBudget;
        out.stderr_lines.push_back("over budget: " + label + " costs $" + std::to_string(p.cost_usd) +
                                   " > --max-cost " + std::to_string(*req.max_cost));
      }
    }
  }
}

PredictOutcome run_predictions(const PredictRequest& req, const Predictor& predictor) {
  if (req.job_files.empty()) throw InputError("no job file given (usage: ptp-predict JOB.yaml [...])");
  if (req.search && !req.sweeps.empty()) throw InputError("--search and --sweep cannot be combined (list the values in --space)");
  if (req.search && !req.trace_path.empty()) throw InputError("--trace needs exactly one job (no search)");
  const auto combos = expand_sweeps(req.sweeps, req.job_files.size());
  const std::optional<Calibrator> calibration = calibrate_request(req, predictor);
  if (req.search) return run_search_request(req, predictor, calibration ? &*calibration : nullptr);
  std::vector<SweepRow> rows;
  rows.reserve(req.job_files.size() * combos.size());
  LearnedMemo memo;  // what the learned levels answered, kept across the sweep
  std::vector<std::string> job_notes;  // what reading each job file warned about, once per file
  std::vector<std::string> set_flags;  // the command's --set flags, which every row carries
  for (const auto& ov : req.overrides)
    if (!is_unset(ov)) set_flags.push_back(ov.first + "=" + ov.second);
  bool bad_file = false;
  for (const auto& file : req.job_files) {
    // With several job files, a bad one is its row's error and the others still print (exit 2).
    const std::size_t rows_before = rows.size();
    try {
    const auto doc = YamlReader::load_file(file);
    if (!doc.is_map()) doc.fail("expected a job spec mapping (model, precision, batch_size, cluster, ...)");
    // Every sweep point edits its own tree: the first the loaded one, later ones a clone of it taken
    // before any edit (re-parsing the text was a third of a 10k-point sweep). YAML::Clone drops
    // line:column marks, so a point whose spec is refused is redone on a fresh parse: its error
    // then points into the file as the first point's would.
    std::string text;
    const std::string gpu_in_file = file_gpu(doc.node());
    const YAML::Node pristine = combos.size() > 1 ? YAML::Clone(doc.node()) : YAML::Node();
    for (const auto& combo : combos) {
      auto fresh = [&] {
        if (text.empty()) text = read_text_file(file, 4u << 20, "YAML text");
        return YamlReader::load_string(text, file).node();
      };
      auto spec_of = [&](YAML::Node root) {
        for (const auto& ov : req.overrides) apply_override(root, ov);
        for (const auto& ov : combo) apply_override(root, ov);
        try {
          JobSpec parsed = parse_job_spec(YamlReader(root, file, ""));
          note_flag_fields(parsed, req.overrides, combo);
          return parsed;
        } catch (const InputError& e) {
          throw blame_flags(e, req.overrides, combo);
        }
      };
      auto spec = [&] {
        if (&combo == &combos.front()) return spec_of(doc.node());
        try {
          return spec_of(YAML::Clone(pristine));
        } catch (const InputError&) {
          return spec_of(fresh());
        }
      };
      JobSpec job = spec();
      if (&combo == &combos.front())
        for (const auto& w : job_warnings(job, predictor.catalogs())) job_notes.push_back("warning: " + w);
      scope_job_price(job, gpu_in_file, req.overrides, combo);
      // In a sweep, a combination that cannot run (a layout that does not divide the cluster, a
      // precision the GPU lacks) is a row marked invalid, not the end of the sweep.
      try {
        rows.push_back({combo, predictor.predict(job, memo)});
        if (calibration) calibration->apply(rows.back().prediction);
      } catch (const InputError& e) {
        if (combo.empty()) throw;
        rows.push_back({combo, invalid_prediction(job, e.what())});
      }
      auto& p = rows.back().prediction;
      p.job_file = file;
      p.set_flags = set_flags;
      for (const auto& ov : combo) p.set_flags.push_back(ov.first + "=" + ov.second);
    }
    } catch (const InputError& e) {
      if (req.job_files.size() == 1) throw;
      rows.resize(rows_before);
      SweepRow bad;
      for (const auto& ov : combos.front()) bad.settings.emplace_back(ov.first, "");
      bad.prediction.valid = false;
      bad.prediction.error = e.what();
      bad.prediction.job_file = file;
      bad.prediction.set_flags = set_flags;
      bad.prediction.num_gpus = 0;
      rows.push_back(std::move(bad));
      job_notes.push_back(std::string("error: ") + e.what());
      bad_file = true;
    }
  }

  PredictOutcome out;
  out.stderr_lines = std::move(job_notes);
  const bool sweep = !req.sweeps.empty();
  out.stdout_text = find_output_format(req.format).render(rows, sweep);
  if (!req.trace_path.empty()) {
    if (rows.size() != 1) throw InputError("--trace needs exactly one job (no sweep)");
    // 20000 layers x 64 micro-batches took 140 s and 5 GB for a 300 MB file. Refuse what no trace
    // viewer could open anyway.
    const auto& p = rows.front().prediction;
    const double events = chrome_trace_layer_events(p);
    if (events > kMaxTraceEvents)
      throw InputError("--trace: " + std::to_string(p.layers.size()) + " layers x " +
                       std::to_string(chrome_trace_microbatches(p)) +
                       " micro-batches is " + std::to_string(static_cast<long long>(events)) + " events, more than " +
                       std::to_string(kMaxTraceEvents) + "; trace a smaller grad_accum");
    out.trace_json = render_chrome_trace(p);
  }

  std::vector<const Prediction*> predictions;
  for (const auto& r : rows) predictions.push_back(&r.prediction);
  check_budgets(req, predictions, out);
  check_fit(req, predictions, out);
  if (bad_file) out.exit_code = kExitBadInput;
  return out;
}

}  // namespace ptp
