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
#include "ptp/predict/prediction_caches.hpp"
#include "ptp/predict/predictor.hpp"
#include "ptp/vocab/enum_names.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

// One searched field: a --set key and the values (as --set would spell them) it takes.
struct SearchAxis {
  std::string key;
  std::vector<std::string> values;
  // Derived from the layout (virtual_pipeline: divisors of layers / pipeline) instead of a list.
  bool per_pipeline = false;
  // Takes `values` only where the tensor-parallel degree is above 1, and only "false" at TP 1, where
  // the flag means nothing (the default space's sequence_parallel).
  bool per_tensor = false;
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
  // Other configurations with the same prediction (search_equivalence_key), collapsed into this row,
  // best first: each as its own `settings` (same keys, in the same order).
  std::vector<std::vector<Override>> equivalent;
  // Within the best row's noise (SearchResult::tie_margin): the predictor cannot order it against
  // the best. The best row is a tie too when any other row is.
  bool tie = false;
};

struct SearchResult {
  SearchObjective objective = SearchObjective::time;
  std::string job_file;
  Prediction job;                  // the job as written (may be invalid: then speed-ups are 0)
  std::vector<std::string> axes;   // searched keys, in order
  std::vector<SearchRow> rows;     // the best `top` distinct predictions, best first
  // Counts over the whole space: every configuration is exactly one of invalid, no_fit, unpriced,
  // ranked. unpriced: --objective cost only, configurations on a GPU with no price (price.hpp: no
  // job price for it, no catalog price), left out of the ranking; `unpriced_gpus` names those GPUs.
  std::size_t configurations = 0, invalid = 0, no_fit = 0, unpriced = 0, ranked = 0;
  std::vector<std::string> unpriced_gpus;
  // Rows whose objective is within tie_margin (a fraction) of the best row's are ties
  // (mark_search_ties); tie_band_low/high are the best row's band as factors on its objective.
  double tie_margin = 0, tie_band_low = 1, tie_band_high = 1;
  CacheReport caches;  // summed over the threads (--verbose prints it)
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

// Searches the space around `base` (the job file with the user's overrides). Configurations with the
// same prediction (search_equivalence_key) are one row, whose settings are the best of them by
// (objective, configuration text) and which lists the others; rows are ranked by that best
// configuration's objective, ties broken by its configuration text, so the rows never depend on
// enumeration order or the thread count. Ties within the noise are marked (mark_search_ties).
// A configuration is invalid when the job spec or the resolver refuses it, no_fit when its memory
// estimate does not fit; neither is predicted further. `calibration` (when given) corrects every
// row before ranking, as --calibrate does for a single prediction.
SearchResult run_search(const JobSpec& base, const SearchSpace& space, const SearchOptions& options,
                        const Predictor& predictor, const Calibrator* calibration);

// Objective value of a prediction (lower is better); InputError when the job lacks what the
// objective needs (cost: run: and a price, the job's or the catalog's).
double search_objective_value(const Prediction& p, SearchObjective o);

// Two configurations are the same answer (one row, the other listed as `equivalent`) when they run
// on the same GPUs and their objective, step time and memory per GPU agree to 6 significant digits
// (as CSV prints them): e.g. zero1 and zero2 where the predictor gives them the same step and memory.
struct SearchEquivalenceKey {
  double objective = 0, iteration_s = 0, per_gpu_bytes = 0;  // each rounded to 6 significant digits
  std::string gpu;
  int num_gpus = 0;
  bool operator<(const SearchEquivalenceKey& o) const;
  bool operator==(const SearchEquivalenceKey& o) const;
};
SearchEquivalenceKey search_equivalence_key(const Prediction& p, double objective);

// The noise a search cannot rank within, from the best row's own 80 % band on the objective (the
// step's band for time, cost and gpu_hours; the energy band for energy and carbon): a tenth of its
// half-width in log space, as a fraction of the objective. The band is the error against measured
// runs, most of which (model, GPU, stack) the configurations around one job share; the tenth is a
// convention for the part that is not shared (docs/predict-guide.md). Sets tie_margin, the band and
// every row's `tie`.
void mark_search_ties(SearchResult& result);

// A search in --format's printer (output.hpp): table (readable), json (one object: counts and ranked
// rows), jsonl (one object per ranked row), csv (one line per ranked row); InputError naming the
// formats that print a search for any other.
std::string render_search(const SearchResult& result, const std::string& format);
// "searched N configurations: I invalid, F do not fit, R ranked" for stderr.
std::string search_summary(const SearchResult& result);

}  // namespace ptp::predict
