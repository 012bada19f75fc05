#pragma once
// What one GPU-hour of a job costs, and who says so. In order:
//   job      cost.usd_per_gpu_hour, for the GPU it was given for (JobSpec::price_gpu);
//   catalog  the GPU's on-demand list price in configs/gpus/<id>.yaml (provider, date);
//   none     no price: the cost is left out (--max-cost and --objective cost refuse the job; a
//            --search --objective cost leaves such configurations out of the ranking, counted).
// The job's price is never reused for another GPU (a --sweep or --search over cluster.gpu): that
// GPU has its catalog price or none.
#include <string>

#include "ptp/vocab/hardware.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

struct JobSpec;

struct PriceQuote {
  std::string source = "none";  // job | catalog | none
  double usd_per_gpu_hour = 0;
  // For people: "job", "catalog (Lambda, 2026-05-07)", "none", or "none (the job's price is for
  // h100-sxm5-80gb)" for another GPU of a job priced for its own.
  std::string label = "none";
  bool known() const { return source != "none"; }
};

// `gpu` is the job's resolved GPU; `gpus` resolves the GPU the job's price was given for.
PriceQuote resolve_price(const JobSpec& job, const GpuSpec& gpu, const GpuCatalog& gpus);

}  // namespace ptp::predict
