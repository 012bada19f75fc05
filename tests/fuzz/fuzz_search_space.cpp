// --search --space SPACE.yaml: parse and validate the space around the hostile-corpus fixture job
// (each value through the job spec parser), then search it when it is small, analytically.
#include "fuzz_common.hpp"
#include "ptp/predict/search.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptp::predict;
  const std::string text = ptp::fuzz::text_of(data, size);
  static const Predictor predictor(ptp::fuzz::config_dir(), "", false);
  static const std::string job = std::string(PTP_SOURCE_DIR) + "/tests/hostile/fixtures/job.yaml";
  static const JobSpec base = load_job_spec(job);
  ptp::fuzz::expect_clean("fuzz-space.yaml", [&] {
    const SearchSpace space = parse_search_space(text, "fuzz-space.yaml", base, job, {}, predictor);
    double points = 1;
    for (const auto& a : space.axes) points *= a.per_pipeline ? 8.0 : static_cast<double>(a.values.size());
    if (points > 2000) return;  // the search itself is what the correctness tests time
    SearchOptions opt;
    opt.top = 3;
    const SearchResult r = run_search(base, space, opt, predictor, nullptr);
    if (r.configurations != r.invalid + r.no_fit + r.unpriced + r.ranked) ptp::fuzz::finding("search counts do not add up");
    for (const auto& row : r.rows)
      if (!(row.prediction.iteration_s > 0) || !row.prediction.memory.fits) ptp::fuzz::finding("bad ranked row");
  });
  return 0;
}
