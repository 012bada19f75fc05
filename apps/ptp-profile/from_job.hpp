#pragma once
// `ptp-profile --from-job JOB.yaml`: the distinct op shapes one zoo job needs, as sweep points for
// the existing microbenchmarks. The only place that sees both libpredict (job -> workload) and the
// microbenchmark names; neither library depends on the other.
#include <map>
#include <string>
#include <vector>

namespace ptp::predict {
struct ResolvedJob;
}

namespace ptp::profile_app {

struct JobPoint {
  std::string bench;                          // registered microbenchmark name
  std::map<std::string, std::string> params;  // axis -> value (text, as a sweep file would say it)
  std::string key() const;                    // bench + params: the dedup key (the point id minus the target)
};

struct JobSweep {
  std::string name;                // "job-<model>"
  std::vector<JobPoint> points;    // distinct, in first-use order (forward pass order)
  std::vector<std::string> notes;  // approximations and ops not profiled, one line each
  int ops = 0;                     // ops in the workload (before dedup)
};

// Translates a resolved job for the cuda backend (host = false: cuBLASLt/cuDNN/kernels/NCCL) or the
// host backend (host_gemm, host_elementwise, host_reduction; the rest is noted, not profiled).
JobSweep job_sweep(const predict::ResolvedJob& job, bool host);

// Loads and resolves the job file against the catalogs under config_dir (InputError on any problem),
// then translates it.
JobSweep load_job_sweep(const std::string& job_path, const std::string& config_dir, bool host);

// The sweep as YAML in the configs/sweeps format (one benchmark entry per point, scalar axes), so it
// goes through the same validation, planning and runner as a sweep file.
std::string job_sweep_yaml(const JobSweep& sweep, bool host);

}  // namespace ptp::profile_app
