#include "ptp/predict/price.hpp"

#include "ptp/predict/job_spec.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

PriceQuote resolve_price(const JobSpec& job, const GpuSpec& gpu, const GpuCatalog& gpus) {
  PriceQuote q;
  // The job's price is for the GPU it names in the file (or for any GPU when given with --set).
  bool job_price_applies = false;
  if (job.usd_per_gpu_hour) {
    if (job.price_gpu.empty()) {
      job_price_applies = true;
    } else {
      const GpuSpec* priced = gpus.find(job.price_gpu);
      job_price_applies = priced ? priced->id == gpu.id : job.price_gpu == gpu.id;
    }
  }
  if (job_price_applies) {
    q.source = q.label = "job";
    q.usd_per_gpu_hour = *job.usd_per_gpu_hour;
  } else if (gpu.price.known()) {
    q.source = "catalog";
    q.usd_per_gpu_hour = gpu.price.usd_per_gpu_hour;
    q.label = "catalog (" + gpu.price.provider + ", " + gpu.price.as_of + ")";
  } else if (job.usd_per_gpu_hour) {
    // None: the job's price is for its own GPU, and another GPU's cost is not guessed from it.
    q.label = "none (the job's price is for " + job.price_gpu + ")";
  }
  return q;
}

}  // namespace ptp::predict
