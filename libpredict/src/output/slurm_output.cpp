// --format slurm: the #SBATCH lines a scheduler needs before launch. The time limit is an upper
// bound, not the prediction: the 80 % band's upper end, plus the run's evaluations and checkpoints
// (the user's seconds), plus a stated margin, rounded up to whole minutes, so that a job the band
// holds is not killed at the limit.
#include <cmath>

#include "ptp/predict/output.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/version.hpp"
#include "text_cells.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {
using text_cells::fmt;

std::string slurm_time_limit(double seconds) {
  const long long minutes = std::max(1LL, static_cast<long long>(std::ceil(seconds / 60 - 1e-9)));
  const long long days = minutes / 1440, hours = minutes % 1440 / 60, mins = minutes % 60;
  char text[48];
  if (days > 0)
    std::snprintf(text, sizeof text, "%lld-%02lld:%02lld:00", days, hours, mins);
  else
    std::snprintf(text, sizeof text, "%02lld:%02lld:00", hours, mins);
  return text;
}

std::string render_slurm(const Prediction& p) {
  if (!p.valid) throw InputError("--format slurm: " + p.error);
  if (p.total_steps <= 0)
    throw InputError("--format slurm needs a run: (steps | epochs + dataset_size | tokens) in the job, to bound its time");
  const double steps_high = p.total_steps * p.iteration_high_s;
  const double overheads = p.eval_seconds + p.checkpoint_seconds;
  const double bound = (steps_high + overheads) * (1 + kSlurmTimeMargin);
  std::string o;
  o += "#SBATCH --time=" + slurm_time_limit(bound) + "\n";
  o += "#SBATCH --nodes=" + std::to_string(p.nodes) + "\n";
  o += "#SBATCH --gpus-per-node=" + std::to_string(p.gpus_per_node) + "\n";
  o += "# ptp-predict " + std::string(ptp_version()) + ": " + p.model + " " + p.precision + " on " +
       std::to_string(p.num_gpus) + " x " + p.gpu + (p.job_file.empty() ? "" : " (" + p.job_file + ")") + "\n";
  o += "# --time: " + fmt("%.0f", p.total_steps) + " steps x " + fmt("%.3g", p.iteration_high_s) +
       " s (the 80 % band's upper end; predicted " + fmt("%.3g", p.iteration_s) + " s) = " +
       human_duration(steps_high) + "\n";
  if (p.evaluations > 0)
    o += "#   + " + std::to_string(p.evaluations) + " evaluations (run.eval) = " + human_duration(p.eval_seconds) + "\n";
  if (p.checkpoints > 0)
    o += "#   + " + std::to_string(p.checkpoints) + " checkpoint saves (run.checkpoint) = " +
         human_duration(p.checkpoint_seconds) + "\n";
  o += "#   + " + fmt("%.0f", 100 * kSlurmTimeMargin) + " % margin = " + human_duration(bound) +
       ", rounded up to whole minutes\n";
  o += "# --nodes, --gpus-per-node: " + std::to_string(p.num_gpus) + " GPUs at " + std::to_string(p.gpus_per_node) +
       " per node (cluster.num_gpus, cluster.gpus_per_node)\n";
  o += "# not in --time: job start-up, data loading stalls, restarts after failures\n";
  if (!p.memory.fits) o += "# warning: the job does not fit in GPU memory (--require-fit makes that exit 4)\n";
  return o;
}

}  // namespace ptp::predict
