#pragma once
// Hardware counters through the CUPTI Profiler Host API (CUDA 13; the legacy Event/Metric APIs return
// CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED there). The host side needs no GPU: it turns metric names
// into a config image for a chip and says how many replay passes the set needs. A new metric is one
// entry in metric_table(). Available only in CUDA builds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cupti {

struct MetricSpec {
  const char* metric;  // CUPTI/Perfworks name
  const char* column;  // row column it fills
  const char* meaning;
};

// The default set: one replay pass together on Ampere and newer (checked by the tests per chip).
const std::vector<MetricSpec>& metric_table();
std::vector<std::string> default_metric_names();

std::vector<std::string> supported_chips();  // e.g. GA100, GH100, ...

struct MetricConfig {
  std::string chip;
  std::vector<std::string> metrics;
  std::vector<std::uint8_t> config_image;  // handed to cuptiRangeProfilerSetConfig on the target
  std::size_t passes = 0;                  // kernel replays needed to collect all metrics
};

// Throws std::runtime_error naming the CUPTI call and error for an unknown chip or metric.
// `counter_availability` comes from the device at run time; empty works for chips known to CUPTI.
MetricConfig build_metric_config(const std::string& chip, const std::vector<std::string>& metrics,
                                 const std::vector<std::uint8_t>& counter_availability = {});

}  // namespace ptp::profile::cupti
