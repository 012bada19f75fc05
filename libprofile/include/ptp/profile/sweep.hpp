#pragma once
// Sweep files (configs/sweeps/*.yaml): measurement settings plus a list of benchmarks, each with
// axes given as lists or ranges (nvbench / CUTLASS profiler style), expanded as a Cartesian product.
//
//   name: host-smoke
//   settings: {warmup: 2, min_reps: 5, max_reps: 100, rel_noise: 0.03, max_time_s: 0.5, l2_flush: false}
//   benchmarks:
//     - bench: host_gemm
//       axes:
//         m: {range: [128, 1024], step: x2}    # 128 256 512 1024
//         k: {range: [64, 256], step: 64}      # 64 128 192 256
//         dtype: [fp32, fp16]
//       settings: {max_time_s: 1}              # optional per-benchmark override
#include <string>
#include <vector>

#include "ptp/profile/microbenchmark.hpp"
#include "ptp/profile/point.hpp"
#include "ptp/profile/stats.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

struct PlannedPoint {
  Point point;
  Work work;
  StopRule rule;
  std::string id;  // cached point.id()
};

struct Sweep {
  std::string name;
  std::string file;
  std::vector<PlannedPoint> points;  // expansion order (file order, then axes odometer)
  std::vector<std::string> skipped;  // drop_unsupported: "12 points skipped: <reason>", one per reason
};


// Parses and fully validates a sweep: unknown keys, unknown benchmarks/axes, bad values (InputError
// naming file:line:column and field). `target` is the gpu catalog id (or "host") used in point ids.
Sweep load_sweep(const std::string& path, const std::string& target, const Registry& registry);
Sweep parse_sweep(const std::string& yaml_text, const std::string& name, const std::string& target,
                  const Registry& registry);

// Leaves out the points their backend refuses whatever the machine (Work::unsupported: the host
// measures fp32 only) and adds one line per reason to sweep.skipped, most points first:
// "12 points skipped: bf16 not run by the host backend (fp32 only)". Returns how many it left out.
// --from-job uses it (a job's bf16 GEMMs are no host work); sweep files keep such points as rows.
std::size_t drop_unsupported(Sweep& sweep);

// Reorders so that an interrupted or budgeted run has covered the space coarsely first: benchmarks
// take turns, and inside each benchmark points come in bit-reversed index order (spread over axes).
std::vector<PlannedPoint> informative_order(std::vector<PlannedPoint> points);

}  // namespace ptp::profile
