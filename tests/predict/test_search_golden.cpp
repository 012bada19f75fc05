// Golden output of --search in every registered format, rendered from fixed, hand-built searches
// (not a search's answer: the rows are fixed_prediction variants and only test the printers): a
// ranked search (with a row that collapses two configurations of one prediction, and a tie), a
// calibrated cost search that left an unpriced GPU out, a search where nothing fits, and a format
// --search refuses. A printer change shows up as a diff against tests/data/golden/search-*; regenerate
// deliberately with PTP_UPDATE_GOLDEN=1 (as for the predict formats, test_output_golden.cpp).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fixed_prediction.hpp"
#include "ptp/predict/output.hpp"
#include "ptp/predict/search.hpp"

using namespace ptp::predict;
using ptp::test::fixed_prediction;

namespace {

Prediction variant(const std::string& precision, int tensor, double iteration_s, double per_gpu_bytes) {
  Prediction p = fixed_prediction();
  p.precision = precision;
  p.layout.tensor = tensor, p.layout.data = 16 / tensor;
  p.iteration_s = iteration_s, p.iteration_low_s = 0.8 * iteration_s, p.iteration_high_s = 1.25 * iteration_s;
  p.samples_per_second = 1024 / iteration_s;
  refresh_totals(p);  // the fixture's 1000 steps at this step, plus its evaluations and checkpoints
  p.memory.per_gpu_bytes = per_gpu_bytes;
  p.warnings.clear();
  return p;
}

SearchRow row(std::vector<Override> settings, Prediction p, std::string changes, SearchObjective o) {
  SearchRow r;
  std::string config;
  for (const auto& [k, v] : settings) config += (config.empty() ? "" : " ") + std::string("--set ") + k + "=" + v;
  // As run_search fills them: the job file as given and the row's flags.
  p.job_file = "configs/jobs/bert-large-amp-16xa100.yaml";
  p.set_flags.clear();
  for (const auto& [k, v] : settings) p.set_flags.push_back(k + "=" + v);
  r.settings = std::move(settings);
  r.objective = search_objective_value(p, o);
  r.prediction = std::move(p);
  r.config = config;
  r.changes = std::move(changes);
  return r;
}

// Four ranked rows of twelve configurations, the job as written among them. The first row is two
// configurations with one prediction (amp_bf16 and amp_fp16 at TP 2); the second is 1.25 % slower,
// inside the noise (a tenth of the 0.8x .. 1.25x band: 2.3 %), so the two are ties.
SearchResult ranked_search() {
  SearchResult r;
  r.objective = SearchObjective::time;
  r.job_file = "configs/jobs/bert-large-amp-16xa100.yaml";
  r.job = fixed_prediction();
  r.job.job_file = r.job_file;
  r.axes = {"precision", "parallelism.tensor"};
  r.configurations = 12, r.invalid = 3, r.no_fit = 2, r.ranked = 7;
  r.rows.push_back(row({{"precision", "amp_bf16"}, {"parallelism.tensor", "2"}}, variant("amp_bf16", 2, 0.4, 20e9),
                       "--set precision=amp_bf16 --set parallelism.tensor=2", r.objective));
  r.rows.back().equivalent = {{{"precision", "amp_fp16"}, {"parallelism.tensor", "2"}}};
  r.rows.push_back(row({{"precision", "amp_bf16"}, {"parallelism.tensor", "4"}}, variant("amp_bf16", 4, 0.405, 15e9),
                       "--set precision=amp_bf16 --set parallelism.tensor=4", r.objective));
  r.rows.push_back(row({{"precision", "amp_fp16"}, {"parallelism.tensor", "1"}}, variant("amp_fp16", 1, 0.5, 25e9), "",
                       r.objective));
  r.rows.push_back(row({{"precision", "fp8"}, {"parallelism.tensor", "4"}}, variant("fp8", 4, 0.55, 12.5e9),
                       "--set precision=fp8 --set parallelism.tensor=4", r.objective));
  mark_search_ties(r);
  return r;
}

// Ranked by cost, every row calibrated (its factors shown), one fitting configuration left out for
// its GPU's having no price.
SearchResult calibrated_cost_search() {
  SearchResult r = ranked_search();
  r.objective = SearchObjective::cost;
  r.ranked = 6, r.unpriced = 1, r.unpriced_gpus = {"h200-sxm-141gb"};
  for (auto& x : r.rows) {
    auto& c = x.prediction.calibration;
    c.applied = true, c.points = 3, c.method = "log_map_stack_factors";
    c.factors = {{"gemm_fp16", 1.15}, {"gemm", 1.1}, {"memory_bound_kernels", 0.9}, {"communication", 1.2},
                 {"host_overhead", 1.0}};
    c.fit_residual = 0.02, c.uncalibrated_residual = 0.1, c.fit_step_error = 0.03, c.uncalibrated_step_error = 0.12;
    c.uncalibrated_iteration_s = x.prediction.iteration_s / 1.05;
    x.objective = search_objective_value(x.prediction, r.objective);
  }
  mark_search_ties(r);
  return r;
}

// Nothing fits: the job as written does not either.
SearchResult empty_search() {
  SearchResult r;
  r.objective = SearchObjective::time;
  r.job_file = "configs/jobs/bert-large-amp-16xa100.yaml";
  r.job = fixed_prediction();
  r.job.job_file = r.job_file;
  r.job.memory.per_gpu_bytes = 90e9, r.job.memory.fits = false;
  r.axes = {"precision", "batch_size"};
  r.configurations = 4, r.invalid = 1, r.no_fit = 3, r.ranked = 0;
  return r;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The text --search prints in `format`, or its one-line error.
std::string rendered(const SearchResult& r, const std::string& format) {
  try {
    return render_search(r, format);
  } catch (const std::exception& e) {
    return std::string("error: ") + e.what() + "\n";
  }
}

void check_golden(const std::string& name, const std::string& text) {
  const std::filesystem::path path = std::filesystem::path(PTP_TEST_DATA_DIR) / "golden" / name;
  INFO(name);
  if (std::getenv("PTP_UPDATE_GOLDEN") != nullptr) std::ofstream(path, std::ios::binary) << text;
  REQUIRE(std::filesystem::exists(path));
  CHECK(text == read_file(path));
}

}  // namespace

TEST_CASE("search golden: every registered format matches its golden file", "[search][golden]") {
  const std::vector<std::pair<std::string, SearchResult>> searches = {
      {"search", ranked_search()}, {"search-calibrated-cost", calibrated_cost_search()}, {"search-empty", empty_search()}};
  REQUIRE(output_formats().size() >= 4);
  for (const auto& [stem, result] : searches)
    for (const auto& f : output_formats()) check_golden(stem + "." + f.name, rendered(result, f.name));
  // The summary --search prints on stderr beside a machine-readable format.
  std::string summaries;
  for (const auto& [stem, result] : searches) summaries += stem + ": " + search_summary(result) + "\n";
  check_golden("search-summary.txt", summaries);
}

TEST_CASE("search golden: a format --search has no printer for is refused, naming the ones it has", "[search][golden]") {
  const std::string text = rendered(ranked_search(), "xml");
  CHECK_THAT(text, Catch::StartsWith("error: "));
  check_golden("search-error.txt", text);
}
