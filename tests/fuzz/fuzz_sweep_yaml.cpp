// ptp-profile sweep YAML (configs/sweeps/*.yaml): parse, validate against the registered host
// benchmarks, expand the axes into points and order them the way a budgeted run would.
#include "fuzz_common.hpp"
#include "ptp/profile/microbenchmark.hpp"
#include "ptp/profile/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptp::predict;
  const std::string text = ptp::fuzz::text_of(data, size);
  ptp::fuzz::expect_clean("fuzz-sweep.yaml", [&] {
    auto sweep = ptp::profile::parse_sweep(text, "fuzz-sweep.yaml", size % 2 ? "host" : "a100-sxm4-80gb",
                                      ptp::profile::Registry::instance());
    const std::size_t n = sweep.points.size();
    const auto ordered = ptp::profile::informative_order(std::move(sweep.points));
    if (ordered.size() != n) ptp::fuzz::finding("informative_order lost points");
  });
  return 0;
}
