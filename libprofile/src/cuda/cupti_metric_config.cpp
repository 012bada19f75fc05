#include <cupti.h>
#include <cupti_profiler_host.h>

#include <memory>
#include <stdexcept>

#include "ptp/profile/cupti_metrics.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cupti {

namespace {

// Zero-initialised CUPTI parameter struct with its size set (the ABI versioning field).
template <typename T>
T params(std::size_t struct_size) {
  T p{};
  p.structSize = struct_size;
  return p;
}

void check(CUptiResult r, const char* call) {
  if (r == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  throw std::runtime_error(std::string(call) + ": " + (text ? text : "unknown CUPTI error"));
}

struct HostObject {
  CUpti_Profiler_Host_Object* object = nullptr;
  HostObject(const std::string& chip, const std::vector<std::uint8_t>& availability) {
    auto p = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    check(cuptiProfilerHostInitialize(&p), "cuptiProfilerHostInitialize");
    object = p.pHostObject;
  }
  ~HostObject() {
    auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    p.pHostObject = object;
    cuptiProfilerHostDeinitialize(&p);
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
};

}  // namespace

const std::vector<MetricSpec>& metric_table() {
  static const std::vector<MetricSpec> t = {
      {"gpu__time_duration.sum", "ctr_gpu_time_s", "GPU time of the range (ns in CUPTI, seconds in rows)"},
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "ctr_dram_throughput_pct", "DRAM throughput, % of peak"},
      // The _op_hmma_ variant is missing on Blackwell; the plain tensor pipe metric exists on sm_80+.
      {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "ctr_tensor_active_pct",
       "tensor pipe active, % of peak while SMs are active"},
  };
  return t;
}

std::vector<std::string> default_metric_names() {
  std::vector<std::string> out;
  for (const auto& m : metric_table()) out.emplace_back(m.metric);
  return out;
}

std::vector<std::string> supported_chips() {
  auto p = params<CUpti_Profiler_Host_GetSupportedChips_Params>(CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE);
  check(cuptiProfilerHostGetSupportedChips(&p), "cuptiProfilerHostGetSupportedChips");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < p.numChips; ++i) out.emplace_back(p.ppChipNames[i]);
  return out;
}

MetricConfig build_metric_config(const std::string& chip, const std::vector<std::string>& metrics,
                                 const std::vector<std::uint8_t>& counter_availability) {
  if (metrics.empty()) throw std::runtime_error("no metrics requested");
  HostObject host(chip, counter_availability);
  std::vector<const char*> names;
  for (const auto& m : metrics) names.push_back(m.c_str());
  auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = host.object;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  check(cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");

  auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = host.object;
  check(cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
  MetricConfig cfg;
  cfg.chip = chip;
  cfg.metrics = metrics;
  cfg.config_image.resize(size.configImageSize);
  auto img = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  img.pHostObject = host.object;
  img.configImageSize = cfg.config_image.size();
  img.pConfigImage = cfg.config_image.data();
  check(cuptiProfilerHostGetConfigImage(&img), "cuptiProfilerHostGetConfigImage");

  auto passes = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  passes.configImageSize = cfg.config_image.size();
  passes.pConfigImage = cfg.config_image.data();
  check(cuptiProfilerHostGetNumOfPasses(&passes), "cuptiProfilerHostGetNumOfPasses");
  cfg.passes = passes.numOfPasses;
  return cfg;
}

}  // namespace ptp::profile::cupti
