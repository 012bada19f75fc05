#include <catch2/catch.hpp>

#include "ptp/profile/cuda_device.hpp"
#include "ptp/profile/plan.hpp"
#include "ptp/profile/sweep.hpp"
#include "ptp/vocab/hardware.hpp"

using namespace ptp::profile;

namespace {
const std::string kSweeps = std::string(PTP_SOURCE_DIR) + "/configs/sweeps/";
}  // namespace

TEST_CASE("roofline call estimates", "[plan]") {
  const auto catalog = ptp::load_gpu_catalog(ptp::config_root() + "/gpus");
  const Roofline r = gpu_roofline(catalog.get("a100-sxm4-80gb", "test"));
  Work gemm;
  gemm.flops = 2.0 * 8192 * 8192 * 8192;
  gemm.bytes = 2.0 * 3 * 8192 * 8192;
  gemm.math = "fp16";
  CHECK(estimate_call_s(gemm, r) == Approx(5e-6 + gemm.flops / (312e12 * 0.7)));
  Work copy;
  copy.bytes = 2e9;
  CHECK(estimate_call_s(copy, r) == Approx(5e-6 + 2e9 / (2039e9 * 0.8)));
  Work ar;
  ar.link_bytes = 1.75e9;
  CHECK(estimate_call_s(ar, r) == Approx(10e-6 + 1.75e9 / (300e9 * 0.8)));
}

TEST_CASE("host-smoke has 20+ points and plans on the host roofline", "[plan]") {
  const Sweep s = load_sweep(kSweeps + "host-smoke.yaml", "host", Registry::instance());
  CHECK(s.points.size() >= 20);
  double wall = 0;
  for (const auto& p : s.points) wall += estimate_point_s(p, host_roofline());
  CHECK(wall > 1);
  CHECK(wall < 180);
}

#ifdef PTP_TEST_HAVE_CUDA
namespace {
double total_gpu_minutes(const Sweep& s, const Roofline& r) {
  double gpu_s = 0;
  for (const auto& p : s.points) gpu_s += estimate_point_s(p, r) * p.work.gpus;
  return gpu_s / 60;
}
}  // namespace

TEST_CASE("full.yaml plans within 60 GPU-minutes on a100-sxm4-80gb", "[plan]") {
  std::string why;
  const bool loaded = cuda::load(&why);  // full.yaml's benchmarks are the CUDA plugin's
  INFO(why);
  REQUIRE(loaded);
  const auto catalog = ptp::load_gpu_catalog(ptp::config_root() + "/gpus");
  const Sweep s = load_sweep(kSweeps + "full.yaml", "a100-sxm4-80gb", Registry::instance());
  const double minutes = total_gpu_minutes(s, gpu_roofline(catalog.get("a100-sxm4-80gb", "test")));
  INFO("full.yaml: " << s.points.size() << " points, " << minutes << " GPU-minutes");
  CHECK(s.points.size() > 500);
  CHECK(minutes <= 60);
  CHECK(minutes >= 10);  // the sweep must not be trivially small either
}
#endif
