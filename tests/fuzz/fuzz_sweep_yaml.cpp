// ptp-profile sweep YAML (configs/sweeps/*.yaml): parse, validate against the registered host
// benchmarks, expand the axes into points and order them the way a budgeted run would.
#include "fuzz_common.hpp"
#include "ptp/profile/microbenchmark.hpp"
#include "ptp/profile/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptp;
  const std::string text = fuzz::text_of(data, size);
  fuzz::expect_clean("fuzz-sweep.yaml", [&] {
    auto sweep = profile::parse_sweep(text, "fuzz-sweep.yaml", size % 2 ? "host" : "a100-sxm4-80gb",
                                      profile::Registry::instance());
    const std::size_t n = sweep.points.size();
    const auto ordered = profile::informative_order(std::move(sweep.points));
    if (ordered.size() != n) fuzz::finding("informative_order lost points");
  });
  return 0;
}
