#include "ptp/predict/predict_session.hpp"

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <thread>
#include <sstream>

#include "ptp/predict/calibration.hpp"
#include "ptp/predict/launch_import.hpp"
#include "ptp/predict/prediction_caches.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

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

// Below this many points per thread a sweep runs on fewer threads: starting one and building its
// caches costs more than the points would.
constexpr std::size_t kMinPointsPerThread = 64;

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

namespace {

// One job file's sweep: every combination of the axes on the file's tree, with the command's flags.
// Every sweep point edits its own tree: the first the loaded one, later ones a clone of it taken
// before any edit (re-parsing the text was a third of a 10k-point sweep).
struct FileSweep {
  const PredictRequest& req;
  const Predictor& predictor;
  const Calibrator* calibration;
  const std::vector<std::vector<Override>>& combos;
  const std::vector<std::string>& set_flags;  // the command's --set flags, which every row carries
  const std::string& file;
  std::size_t index;  // of the job in the request: a refused point re-reads it (read_job_document)
  std::string gpu_in_file;

  JobSpec spec_of(const std::vector<Override>& combo, YAML::Node tree, PredictionCaches& mine) const {
    for (const auto& ov : req.overrides) apply_override(tree, ov, mine.flag_values);
    for (const auto& ov : combo) apply_override(tree, ov, mine.flag_values);
    try {
      JobSpec parsed = parse_job_spec(YamlReader(tree, file, ""));
      note_flag_fields(parsed, req.overrides, combo);
      return parsed;
    } catch (const InputError& e) {
      throw blame_flags(e, req.overrides, combo);
    }
  }

  JobSpec spec(const std::vector<Override>& combo, YAML::Node root, PredictionCaches& mine) const {
    if (&combo == &combos.front()) return spec_of(combo, root, mine);
    try {
      return spec_of(combo, root, mine);
    } catch (const InputError&) {
      // YAML::Clone drops line:column marks: a refused point is redone on a fresh parse, so that
      // its error points into the file as the first point's would.
      return spec_of(combo, read_job_document(req, index).node(), mine);
    }
  }

  // One point on `root` (the loaded tree for the first, a clone for the others): its spec, its
  // prediction (or its invalid row), its flags.
  std::pair<JobSpec, SweepRow> point(const std::vector<Override>& combo, YAML::Node root, PredictionCaches& mine) const {
    JobSpec job = spec(combo, root, mine);
    scope_job_price(job, gpu_in_file, req.overrides, combo);
    SweepRow row{combo, {}};
    // In a sweep, a combination that cannot run (a layout that does not divide the cluster, a
    // precision the GPU lacks) is a row marked invalid, not the end of the sweep.
    try {
      row.prediction = predictor.predict(mine.workloads.resolve(job), mine.learned);
      if (calibration) calibration->apply(row.prediction);
    } catch (const InputError& e) {
      if (combo.empty()) throw;
      row.prediction = invalid_prediction(job, e.what());
    }
    auto& p = row.prediction;
    // Only a trace reads the per-layer times, and a trace takes one point: a sweep's rows drop them.
    if (combos.size() > 1) std::vector<TraceLayer>().swap(p.layers);
    p.job_file = file;
    p.set_flags = set_flags;
    for (const auto& ov : combo) p.set_flags.push_back(ov.first + "=" + ov.second);
    return std::make_pair(std::move(job), std::move(row));
  }

  // The points after the first, on clones of the loaded tree (each point sets the same keys again),
  // in contiguous shares, one per thread, each with its own caches. A point whose spec is refused
  // ends the file as it would one at a time: the first such point's error.
  void rest(const YAML::Node& loaded, std::vector<PredictionCaches>& caches, std::vector<SweepRow>& rows) const {
    const std::size_t rest = combos.size() - 1;
    if (rest == 0) return;
    const std::size_t shares = std::min<std::size_t>(caches.size(), std::max<std::size_t>(1, rest / kMinPointsPerThread));
    std::vector<std::vector<SweepRow>> share_rows(shares);
    std::vector<std::exception_ptr> share_error(shares);
    const YAML::Node pristine = YAML::Clone(loaded);
    std::vector<YAML::Node> trees(shares);
    for (auto& t : trees) t = YAML::Clone(pristine);  // yaml-cpp nodes are not shared across threads
    auto run_share = [&](std::size_t t) {
      const std::size_t begin = 1 + rest * t / shares, end = 1 + rest * (t + 1) / shares;
      try {
        share_rows[t].reserve(end - begin);
        for (std::size_t i = begin; i < end; ++i)
          share_rows[t].push_back(point(combos[i], YAML::Clone(trees[t]), caches[t]).second);
      } catch (...) {
        share_error[t] = std::current_exception();
      }
    };
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < shares; ++t) pool.emplace_back(run_share, t);
    run_share(0);
    for (auto& th : pool) th.join();
    for (std::size_t t = 0; t < shares; ++t) {
      if (share_error[t]) std::rethrow_exception(share_error[t]);
      for (auto& r : share_rows[t]) rows.push_back(std::move(r));
    }
  }
};

// The row a job file that cannot be read becomes when other files still print.
SweepRow bad_file_row(const std::string& file, const std::vector<Override>& first_combo,
                      const std::vector<std::string>& set_flags, const std::string& error) {
  SweepRow bad;
  for (const auto& ov : first_combo) bad.settings.emplace_back(ov.first, "");
  bad.prediction.valid = false;
  bad.prediction.error = error;
  bad.prediction.job_file = file;
  bad.prediction.set_flags = set_flags;
  bad.prediction.num_gpus = 0;
  return bad;
}

std::string trace_of(const std::vector<SweepRow>& rows) {
  if (rows.size() != 1) throw InputError("--trace needs exactly one job (no sweep)");
  // 20000 layers x 64 micro-batches took 140 s and 5 GB for a 300 MB file. Refuse what no trace
  // viewer could open anyway.
  const auto& p = rows.front().prediction;
  const double events = chrome_trace_layer_events(p);
  if (events > kMaxTraceEvents)
    throw InputError("--trace: " + std::to_string(p.layers.size()) + " layers x " +
                     std::to_string(chrome_trace_microbatches(p)) + " micro-batches is " +
                     std::to_string(static_cast<long long>(events)) + " events, more than " +
                     std::to_string(kMaxTraceEvents) + "; trace a smaller grad_accum");
  return render_chrome_trace(p);
}

}  // namespace

YamlReader read_job_document(const PredictRequest& req, std::size_t i) {
  if (req.job_texts.empty()) return YamlReader::load_file(req.job_files.at(i));
  if (req.job_texts.size() != req.job_files.size())
    throw std::logic_error("PredictRequest: job_texts and job_files differ in length");
  return YamlReader::load_document(req.job_texts[i], req.job_files[i]);
}

JobSpec load_request_job(const PredictRequest& req, std::size_t i, const std::vector<Override>& overrides) {
  return load_job_spec(read_job_document(req, i), overrides);
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
  // Each thread's workloads and learned answers, kept across the sweep.
  if (req.threads < 1 || req.threads > 256) throw InputError("--threads must be between 1 and 256");
  std::vector<PredictionCaches> caches;
  caches.reserve(static_cast<std::size_t>(req.threads));
  for (int t = 0; t < req.threads; ++t) caches.emplace_back(predictor.catalogs());
  std::vector<std::string> job_notes;  // what reading each job file warned about, once per file
  std::vector<std::string> set_flags;
  for (const auto& ov : req.overrides)
    if (!is_unset(ov)) set_flags.push_back(ov.first + "=" + ov.second);
  bool bad_file = false;
  for (std::size_t i = 0; i < req.job_files.size(); ++i) {
    const std::string& file = req.job_files[i];
    // With several job files, a bad one is its row's error and the others still print (exit 2).
    const std::size_t rows_before = rows.size();
    try {
      const auto doc = read_job_document(req, i);
      if (!doc.is_map()) doc.fail("expected a job spec mapping (model, precision, batch_size, cluster, ...)");
      const FileSweep sweep{req, predictor, calibration ? &*calibration : nullptr, combos, set_flags, file, i,
                            file_gpu(doc.node())};
      // The first point on the loaded tree; its job's warnings are the file's.
      auto first = sweep.point(combos.front(), doc.node(), caches.front());
      for (const auto& w : job_warnings(first.first, predictor.catalogs())) job_notes.push_back("warning: " + w);
      rows.push_back(std::move(first.second));
      sweep.rest(doc.node(), caches, rows);
    } catch (const InputError& e) {
      if (req.job_files.size() == 1) throw;
      rows.resize(rows_before);
      rows.push_back(bad_file_row(file, combos.front(), set_flags, e.what()));
      job_notes.push_back(std::string("error: ") + e.what());
      bad_file = true;
    }
  }

  PredictOutcome out;
  out.stderr_lines = std::move(job_notes);
  if (req.verbose) {
    CacheReport report;
    for (const auto& c : caches) report.add(c.report());
    out.stderr_lines.push_back(report.text());
  }
  out.stdout_text = find_output_format(req.format).render(rows, !req.sweeps.empty());
  if (!req.trace_path.empty()) out.trace_json = trace_of(rows);
  std::vector<const Prediction*> predictions;
  for (const auto& r : rows) predictions.push_back(&r.prediction);
  check_budgets(req, predictions, out);
  check_fit(req, predictions, out);
  if (bad_file) out.exit_code = kExitBadInput;
  return out;
}

}  // namespace ptp::predict
