#pragma once
// `ptp-predict JOB --search`: which precision, layout, micro-batch (and, when asked, GPU count and
// type) make a job fastest or cheapest while it still fits in memory. Every ranked row is an
// ordinary prediction of the job with some `--set` overrides; the search only avoids re-parsing
// YAML and rebuilding the workload for each of them.
#include <cstddef>
#include <string>
#include <vector>

#include "ptp/predict/calibration.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/prediction.hpp"
#include "ptp/predict/predictor.hpp"
#include "ptp/vocab/enum_names.hpp"

namespace ptp {

// One searched field: a --set key and the values (as --set would spell them) it takes.
struct SearchAxis {
  std::string key;
  std::vector<std::string> values;
  // Derived from the layout (virtual_pipeline: divisors of layers / pipeline) instead of a list.
  bool per_pipeline = false;
};

struct SearchSpace {
  std::vector<SearchAxis> axes;   // enumeration order; the last axis varies fastest
  std::vector<Override> fixed;    // applied to every configuration (the global batch kept fixed)
  std::string file;               // SPACE.yaml, for messages ("" for the default space)
};

// Keys a space may name (the --set keys whose values the search can vary).
const std::vector<std::string>& searchable_keys();

// The default space for a job: precisions its GPU runs, layouts and micro-batches its model admits.
// `base` is the job as written (with the user's --set overrides), parsed but not resolved.
SearchSpace default_search_space(const JobSpec& base, const Predictor& predictor);

// SPACE.yaml: a mapping of searchable keys to non-empty lists of values; each list replaces the
// default axis for its key. Every value is checked by parsing the job with it (so it gets the job
// spec's own validation), and refused with the space file's line:column. `base_yaml` is the job's
// text with the user's overrides applied, re-parsed per value.
SearchSpace load_search_space(const std::string& path, const JobSpec& base, const std::string& job_file,
                              const std::vector<Override>& overrides, const Predictor& predictor);
SearchSpace parse_search_space(const std::string& text, const std::string& path, const JobSpec& base,
                               const std::string& job_file, const std::vector<Override>& overrides,
                               const Predictor& predictor);

enum class SearchObjective { time, cost, gpu_hours, energy, carbon };
const EnumNames<SearchObjective>& search_objective_names();  // with what each measures, for --help
SearchObjective parse_search_objective(const std::string& name);  // InputError naming the choices
const char* search_objective_name(SearchObjective o);

struct SearchRow {
  // One value per axis (and the fixed overrides), in axis order, then the user's own --set flags
  // the axes do not replace: with the job file, the flags that reproduce the row.
  std::vector<Override> settings;
  Prediction prediction;
  double objective = 0;            // what the ranking sorts by (lower is better)
  std::string config;              // the searched flags (axes and fixed overrides) as one string: the tie-break
  // The fewest flags that reproduce the row from the job file: the user's --set flags and the
  // searched values that differ from the job as written (or replace one of the user's flags).
  std::string changes;
};

struct SearchResult {
  SearchObjective objective = SearchObjective::time;
  std::string job_file;
  Prediction job;                  // the job as written (may be invalid: then speed-ups are 0)
  std::vector<std::string> axes;   // searched keys, in order
  std::vector<SearchRow> rows;     // the best `top`, best first
  // Counts over the whole space: every configuration is exactly one of invalid, no_fit, ranked.
  std::size_t configurations = 0, invalid = 0, no_fit = 0, ranked = 0;
  // Ranked configurations whose cost is priced by a default (price.hpp: the job's price reused for a
  // GPU the catalog does not price), and those GPUs.
  std::size_t default_priced = 0;
  std::vector<std::string> default_priced_gpus;
};

struct SearchOptions {
  SearchObjective objective = SearchObjective::time;
  int top = 10;
  std::string space_path;  // empty: default_search_space
  int threads = 1;         // threads share the one Predictor (its bundle is loaded once)
  // The user's --set flags, already applied to the base job: rows carry them so that their flags
  // reproduce them from the job file.
  std::vector<Override> overrides;
};

// Searches the space around `base` (the job file with the user's overrides). Rows are ranked by the
// objective, ties broken by the configuration text, so the order never depends on enumeration.
// A configuration is invalid when the job spec or the resolver refuses it, no_fit when its memory
// estimate does not fit; neither is predicted further. `calibration` (when given) corrects every
// row before ranking, as --calibrate does for a single prediction.
SearchResult run_search(const JobSpec& base, const SearchSpace& space, const SearchOptions& options,
                        const Predictor& predictor, const Calibrator* calibration);

// Objective value of a prediction (lower is better); InputError when the job lacks what the
// objective needs (cost: run: and a price, the job's or the catalog's).
double search_objective_value(const Prediction& p, SearchObjective o);

// Renderings of a search, per --format: table (readable), json (one object: counts and ranked rows),
// jsonl (one object per ranked row), csv (one line per ranked row).
std::string render_search(const SearchResult& result, const std::string& format);
// "searched N configurations: I invalid, F do not fit, R ranked" for stderr.
std::string search_summary(const SearchResult& result);

}  // namespace ptp
