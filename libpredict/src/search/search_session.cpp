// --search as a library call: the job as written is predicted first (its errors are the user's to
// fix before any search, and it is what every row's speed-up compares against), then the space.
#include "ptp/predict/calibration.hpp"
#include "ptp/predict/launch_import.hpp"
#include "ptp/predict/predict_session.hpp"
#include "ptp/predict/search.hpp"
#include "ptp/vocab/error.hpp"

namespace ptp {

PredictOutcome run_search_request(const PredictRequest& req, const Predictor& predictor,
                                  const Calibrator* calibration) {
  if (req.job_files.size() != 1) throw InputError("--search takes exactly one job file");
  const std::string& file = req.job_files.front();
  const JobSpec base = load_job_spec(file, req.overrides);
  Prediction job = predictor.predict(base);
  if (calibration) calibration->apply(job);
  search_objective_value(job, req.search_options.objective);  // refuses an objective the job cannot price
  const SearchSpace space = req.search_options.space_path.empty()
                                ? default_search_space(base, predictor)
                                : load_search_space(req.search_options.space_path, base, file, req.overrides, predictor);
  SearchOptions options = req.search_options;
  options.overrides = req.overrides;
  SearchResult result = run_search(base, space, options, predictor, calibration);
  result.job = std::move(job);

  PredictOutcome out;
  for (const auto& w : job_warnings(base, predictor.catalogs())) out.stderr_lines.push_back("warning: " + w);
  out.stdout_text = render_search(result, req.format);
  if (req.format != "table") out.stderr_lines.push_back("search: " + search_summary(result));
  if (result.default_priced > 0 && req.search_options.objective == SearchObjective::cost) {
    std::string gpus;
    for (const auto& g : result.default_priced_gpus) gpus += (gpus.empty() ? "" : ", ") + g;
    out.stderr_lines.push_back("warning: " + std::to_string(result.default_priced) + " of " +
                               std::to_string(result.ranked) +
                               " ranked configurations are priced by a default, not by the job or the catalog: the "
                               "job's cost.usd_per_gpu_hour (given for " + base.price_gpu + ") stands in for " + gpus +
                               ", which the catalog does not price; give those GPUs a price: in configs/gpus/");
  }
  if (result.rows.empty()) {
    if (req.max_hours || req.max_cost || req.max_kwh) {
      out.exit_code = 3;
      out.stderr_lines.push_back("over budget: no configuration of the space fits in memory");
    }
    return out;
  }
  check_budgets(req, {&result.rows.front().prediction}, out);
  return out;
}

}  // namespace ptp
