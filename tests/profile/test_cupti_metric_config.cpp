// CUPTI Profiler Host API without a GPU: chip list, config images and pass counts per chip.
#include <catch2/catch.hpp>

#include "ptp/profile/cupti_metrics.hpp"

using namespace ptp::profile::cupti;

TEST_CASE("the Host API knows the chips of the GPU catalog", "[cupti]") {
  const auto chips = supported_chips();
  INFO("chips: " << chips.size());
  for (const char* c : {"GA100", "GA102", "GH100", "AD102", "TU102"})
    CHECK(std::find(chips.begin(), chips.end(), c) != chips.end());
}

TEST_CASE("default metrics build a one-pass config image on Ampere and newer", "[cupti]") {
  for (const char* chip : {"GA100", "GA102", "AD102", "GH100"}) {
    INFO(chip);
    const MetricConfig cfg = build_metric_config(chip, default_metric_names());
    CHECK(cfg.config_image.size() > 0);
    CHECK(cfg.passes == 1);
  }
}

TEST_CASE("unknown metrics and chips are reported, not ignored", "[cupti]") {
  CHECK_THROWS_WITH(build_metric_config("GA100", {"dram__no_such_metric.sum"}),
                    Catch::Contains("cuptiProfilerHostConfigAddMetrics"));
  CHECK_THROWS_WITH(build_metric_config("NOPE42", default_metric_names()), Catch::Contains("cuptiProfilerHost"));
  CHECK_THROWS(build_metric_config("GA100", {}));
}
