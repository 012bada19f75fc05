#pragma once
// What one GPU-hour of a job costs, and who says so. In order:
//   job      cost.usd_per_gpu_hour, for the GPU it was given for (JobSpec::price_gpu);
//   catalog  the GPU's on-demand list price in configs/gpus/<id>.yaml (provider, date);
//   default  the job's price reused for another GPU the catalog has no price for (a --sweep or
//            --search over cluster.gpu): a stand-in, said so in the output and warned about;
//   none     no price: the cost is left out (and --objective cost / --max-cost refuse the job).
#include <string>

#include "ptp/vocab/hardware.hpp"

namespace ptp {

struct JobSpec;

struct PriceQuote {
  std::string source = "none";  // job | catalog | default | none
  double usd_per_gpu_hour = 0;
  std::string label = "none";   // for people: "job", "catalog (Lambda, 2026-05-07)", "default (...)"
  bool known() const { return source != "none"; }
};

// `gpu` is the job's resolved GPU; `gpus` resolves the GPU the job's price was given for.
PriceQuote resolve_price(const JobSpec& job, const GpuSpec& gpu, const GpuCatalog& gpus);

}  // namespace ptp
