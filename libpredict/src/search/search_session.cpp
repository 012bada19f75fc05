// --search as a library call: the job as written is predicted first (its errors are the user's to
// fix before any search, and it is what every row's speed-up compares against), then the space.
#include "ptp/predict/calibration.hpp"
#include "ptp/predict/launch_import.hpp"
#include "ptp/predict/output.hpp"
#include "ptp/predict/predict_session.hpp"
#include "ptp/predict/search.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

PredictOutcome run_search_request(const PredictRequest& req, const Predictor& predictor,
                                  const Calibrator* calibration) {
  if (req.job_files.size() != 1) throw InputError("--search takes exactly one job file");
  const std::string& file = req.job_files.front();
  const JobSpec base = load_request_job(req, 0, req.overrides);
  Prediction job = predictor.predict(base);
  job.job_file = file;
  if (calibration) calibration->apply(job);
  search_objective_value(job, req.search_options.objective);  // refuses an objective the job cannot price
  const SearchSpace space = req.search_options.space_path.empty()
                                ? default_search_space(base, predictor)
                                : load_search_space(req.search_options.space_path, base, file, req.overrides, predictor);
  SearchOptions options = req.search_options;
  options.overrides = req.overrides;
  options.threads = req.threads;
  SearchResult result = run_search(base, space, options, predictor, calibration);
  result.job = std::move(job);

  PredictOutcome out;
  for (const auto& w : job_warnings(base, predictor.catalogs())) out.stderr_lines.push_back("warning: " + w);
  out.stdout_text = render_search(result, req.format);
  if (!find_output_format(req.format).printer.readable()) out.stderr_lines.push_back("search: " + search_summary(result));
  if (req.verbose) out.stderr_lines.push_back(result.caches.text());
  if (result.unpriced > 0) {
    std::string gpus;
    for (const auto& g : result.unpriced_gpus) gpus += (gpus.empty() ? "" : ", ") + g;
    out.stderr_lines.push_back(
        "note: " + std::to_string(result.unpriced) +
        (result.unpriced == 1 ? " configuration that fits is" : " configurations that fit are") +
        " left out of the cost ranking: " +
        gpus + " " + (result.unpriced_gpus.size() == 1 ? "has" : "have") + " no price (no price: entry in configs/gpus/<id>.yaml" +
        (base.usd_per_gpu_hour ? ", and the job's cost.usd_per_gpu_hour is for " + base.price_gpu : std::string()) +
        "); --set cost.usd_per_gpu_hour=X prices every GPU at X");
  }
  if (result.rows.empty()) {
    // No row: none fits, or the ones that fit are unpriced for a cost ranking.
    const bool none_fits = result.configurations == result.invalid + result.no_fit;
    const std::string why = none_fits ? "no configuration of the space around " + file + " fits in memory"
                                      : "no configuration of the space around " + file + " that fits has a price";
    if (req.max_hours || req.max_cost || req.max_kwh) {
      out.exit_code = kExitOverBudget;
      out.stderr_lines.push_back("over budget: " + why);
    }
    if (req.require_fit && none_fits) {
      out.exit_code = kExitDoesNotFit;
      out.stderr_lines.push_back("does not fit: " + why);
    }
    return out;
  }
  check_budgets(req, {&result.rows.front().prediction}, out);
  check_fit(req, {&result.rows.front().prediction}, out);
  return out;
}

}  // namespace ptp::predict
