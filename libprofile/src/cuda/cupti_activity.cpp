#include "cupti_activity.hpp"

#include <cupti.h>

#include <cstdlib>
#include <mutex>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

namespace {
std::mutex g_mutex;
KernelStats g_stats;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 4u << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  std::lock_guard<std::mutex> lock(g_mutex);
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    // Records are packed: copy fields out instead of binding references to them.
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    const uint64_t start = k->start, end = k->end;
    const char* name = k->name;
    g_stats.seconds_by_name[name ? name : "?"] += static_cast<double>(end - start) * 1e-9;
    ++g_stats.launches;
  }
  std::free(buffer);
}
}  // namespace

std::string KernelStats::dominant() const {
  std::string best;
  double t = -1;
  for (const auto& [n, s] : seconds_by_name)
    if (s > t) best = n, t = s;
  return best;
}

double KernelStats::total_s() const {
  double t = 0;
  for (const auto& kv : seconds_by_name) t += kv.second;
  return t;
}

KernelActivity::KernelActivity() {
  static const bool registered =
      cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) == CUPTI_SUCCESS;
  ok_ = registered && cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_stats = {};
}

KernelActivity::~KernelActivity() {
  if (ok_) cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
}

KernelStats KernelActivity::collect() {
  if (!ok_) return {};
  cuptiActivityFlushAll(1);
  std::lock_guard<std::mutex> lock(g_mutex);
  KernelStats out = g_stats;
  g_stats = {};
  return out;
}

}  // namespace ptp::profile::cuda
