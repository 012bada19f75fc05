// `ptp-profile --from-job JOB.yaml`: load and resolve the job, translate its workload into sweep
// points for the cuda and host backends, render them as sweep YAML and parse that back through the
// same validation a sweep file gets. Oracle beyond the common one: the YAML generated from an
// accepted job must itself be a valid sweep (an InputError there is a finding, not a clean refusal)
// wherever this build registers the benchmarks it names.
// Models are restricted to zoo ids (paths would read arbitrary files; model_yaml fuzzes those).
#include <fstream>

#include "from_job.hpp"
#include "fuzz_common.hpp"
#include "ptp/profile/microbenchmark.hpp"
#include "ptp/profile/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptp::predict;
  const std::string text = ptp::fuzz::text_of(data, size);
  if (ptp::fuzz::model_is_a_path(text)) return 0;
  static const std::string job_path = ptp::fuzz::scratch_path("fuzz-from-job.yaml");
  { std::ofstream(job_path, std::ios::binary | std::ios::trunc) << text; }
  for (const bool host : {false, true}) {
    ptp::profile_app::JobSweep sweep;
    try {
      sweep = ptp::profile_app::load_job_sweep(job_path, ptp::fuzz::config_dir(), host);
    } catch (const InputError& e) {
      ptp::fuzz::check_message(e.what(), "fuzz-from-job.yaml");
      return 0;
    }
    const std::string yaml = ptp::profile_app::job_sweep_yaml(sweep, host);
    // The cuda microbenchmarks are registered only in CUDA builds; without them the cuda YAML is
    // rendered but cannot be validated.
    if (sweep.points.empty() || !ptp::profile::Registry::instance().find(sweep.points.front().bench)) continue;
    try {
      const auto parsed = ptp::profile::parse_sweep(yaml, "from-job", host ? "host" : "a100-sxm4-80gb",
                                               ptp::profile::Registry::instance());
      if (parsed.points.size() < sweep.points.size())
        ptp::fuzz::finding("sweep YAML lost points: " + std::to_string(sweep.points.size()) + " -> " +
                      std::to_string(parsed.points.size()));
    } catch (const InputError& e) {
      ptp::fuzz::finding(std::string("generated sweep YAML rejected: ") + e.what());
    }
  }
  return 0;
}
