#include "ptp/predict/price.hpp"

#include <cstdio>

#include "ptp/predict/job_spec.hpp"

namespace ptp {

namespace {
std::string dollars(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "$%.2f", v);
  return text;
}
}  // namespace

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
    q.source = "default";
    q.usd_per_gpu_hour = *job.usd_per_gpu_hour;
    q.label = "default (the job's " + dollars(*job.usd_per_gpu_hour) + " for " + job.price_gpu + "; no catalog price for " +
              gpu.id + ")";
  }
  return q;
}

}  // namespace ptp
