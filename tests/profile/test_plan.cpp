#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>

#include "ptp/profile/detail/cuda_work.hpp"
#include "ptp/profile/cuda_device.hpp"
#include "ptp/profile/plan.hpp"
#include "ptp/profile/sweep.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/hardware.hpp"

using namespace ptp::profile;

namespace {
const std::string kSweeps = std::string(PTP_SOURCE_DIR) + "/configs/sweeps/";

// A host point with this work and rule, as a sweep would plan it.
PlannedPoint host_point(const Work& w, const StopRule& rule) {
  PlannedPoint p;
  p.work = w;
  p.rule = rule;
  return p;
}

double host_plan_s(const std::string& yaml) {
  const Sweep s = parse_sweep(yaml, "test.yaml", "host", Registry::instance());
  double wall = 0;
  for (const auto& p : s.points) wall += estimate_point_s(p, host_roofline());
  return wall;
}
}  // namespace

TEST_CASE("roofline call estimates", "[plan]") {
  const auto catalog = ptp::vocab::load_gpu_catalog(ptp::vocab::config_root() + "/gpus");
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

TEST_CASE("host estimate: setup + warm-up + the stopping rule's loop, flushes included", "[plan]") {
  const Roofline r = host_roofline();
  Work w;
  w.flops = 2.0 * 512 * 512 * 512;  // a 512^3 sgemm: about 4 ms at the host's BLAS rate
  w.bytes = 4.0 * 3 * 512 * 512;
  w.math = "fp32";
  w.alloc_bytes = w.bytes;
  StopRule rule;
  rule.warmup = 3;
  rule.min_reps = 30;
  rule.max_reps = 2000;
  rule.max_time_s = 2.0;
  const double call = estimate_call_s(w, r);
  CHECK(call == Approx(r.launch_s + w.flops / r.host_flops));
  const PointEstimate e = estimate_point(host_point(w, rule), r);
  // The loop stops at the first sample past max_time_s (max_reps is far away).
  CHECK(e.reps_capped == static_cast<int>(std::ceil(rule.max_time_s / call)));
  CHECK(e.reps_converged == rule.min_reps);
  const double fixed = r.point_setup_s + w.alloc_bytes / r.first_touch_bytes_per_s + rule.warmup * call;
  CHECK(e.capped_s == Approx(fixed + e.reps_capped * call));
  CHECK(e.converged_s == Approx(fixed + e.reps_converged * call));
  // The plan's figure: loops whose noise stays above rel_noise run to their caps.
  const double q = r.unconverged_share(rule.rel_noise);
  CHECK(e.s == Approx(e.converged_s + q * (e.capped_s - e.converged_s)));
  CHECK(estimate_point_s(host_point(w, rule), r) == e.s);
  CHECK(e.capped_s >= rule.max_time_s);

  // Warm-up calls and cold-run flushes (256 MiB streamed before every warm-up call and sample).
  StopRule more_warmup = rule;
  more_warmup.warmup = 13;
  CHECK(estimate_point(host_point(w, more_warmup), r).converged_s == Approx(e.converged_s + 10 * call));
  StopRule cold = rule;
  cold.l2_flush = true;
  const double flush = r.flush_s();
  CHECK(flush == Approx(256.0 * (1 << 20) / r.bytes_per_s + r.launch_s));
  const PointEstimate ec = estimate_point(host_point(w, cold), r);
  CHECK(ec.reps_capped == static_cast<int>(std::ceil(cold.max_time_s / (call + flush))));
  CHECK(ec.converged_s == Approx(fixed + cold.warmup * flush + cold.min_reps * (call + flush)));

  // Buffers are allocated and filled once per point.
  Work big = w;
  big.alloc_bytes += 1.6e9;
  CHECK(estimate_point(host_point(big, rule), r).s == Approx(e.s + 1.6e9 / r.first_touch_bytes_per_s));

  // A point the backend refuses at once costs its row only.
  Work refused = w;
  refused.unsupported = "bf16 not run by the host backend (fp32 only)";
  const PointEstimate er = estimate_point(host_point(refused, rule), r);
  CHECK(er.s == Approx(r.point_setup_s));
  CHECK(er.converged_s == er.s);
}

TEST_CASE("host estimate: repetition counts follow min_reps, max_reps and max_time_s", "[plan]") {
  const Roofline r = host_roofline();
  Work tiny;  // 1 MB copy: ~0.1 ms, so max_reps ends the loop before the time cap
  tiny.bytes = 2e6;
  StopRule rule;
  rule.warmup = 2;
  rule.min_reps = 5;
  rule.max_reps = 200;
  rule.max_time_s = 0.5;
  const double call = estimate_call_s(tiny, r);
  const PointEstimate e = estimate_point(host_point(tiny, rule), r);
  CHECK(e.reps_capped == 200);
  CHECK(e.reps_converged == 5);
  StopRule twice = rule;
  twice.max_reps = 400;
  CHECK(estimate_point(host_point(tiny, twice), r).capped_s - e.capped_s == Approx(200 * call));
  // min_reps of 1 still takes 2 samples before the noise can be judged.
  StopRule one = rule;
  one.min_reps = 1;
  CHECK(estimate_point(host_point(tiny, one), r).reps_converged == 2);
  // A call longer than max_time_s: one sample after the warm-up, under both bounds.
  Work huge;
  huge.flops = 2e12;
  huge.math = "fp32";
  const PointEstimate eh = estimate_point(host_point(huge, rule), r);
  CHECK(eh.reps_capped == 1);
  CHECK(eh.reps_converged == 1);
  CHECK(eh.s == Approx(r.point_setup_s + 3 * estimate_call_s(huge, r)));
}

TEST_CASE("host estimate: the share of loops left at their caps falls as rel_noise loosens", "[plan]") {
  const Roofline r = host_roofline();
  CHECK(r.unconverged_share(r.noise_median) == Approx(0.5));  // rel_noise at the median host noise
  CHECK(r.unconverged_share(0) == 1);
  double last = 1;
  for (double rel : {0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2}) {
    const double q = r.unconverged_share(rel);
    CHECK(q < last);
    CHECK(q > 0);
    last = q;
  }
  CHECK(r.unconverged_share(0.2) < 0.01);  // a loose rel_noise: nearly every loop converges
  // The GPU plan keeps its ~10-repetition model: no such share.
  const auto catalog = ptp::vocab::load_gpu_catalog(ptp::vocab::config_root() + "/gpus");
  CHECK(gpu_roofline(catalog.get("a100-sxm4-80gb", "test")).unconverged_share(0.02) == 0);
}

TEST_CASE("host estimate: BLAS, plain loops and libm calls have their own rates", "[plan]") {
  const Roofline r = host_roofline();
  CHECK(r.flops("fp32") == r.host_flops);
  CHECK(r.flops("loop") == r.host_loop_flops);
  CHECK(r.flops("libm") == r.host_libm_flops);
  CHECK(r.host_flops > r.host_loop_flops);
  CHECK(r.host_loop_flops > r.host_libm_flops);
  // host_elementwise: GELU (std::tanh per element) costs more per element than dropout or add.
  const Sweep s = parse_sweep(R"(name: t
benchmarks:
  - bench: host_elementwise
    axes: {op: [add, dropout, gelu], elements: [4194304]}
)", "t.yaml", "host", Registry::instance());
  REQUIRE(s.points.size() == 3);
  std::map<std::string, double> call;
  for (const auto& p : s.points) call[p.point.params.at("op")] = estimate_call_s(p.work, r);
  CHECK(call["gelu"] > call["dropout"]);
  CHECK(call["dropout"] > call["add"]);
  CHECK(call["add"] == Approx(r.launch_s + 3 * 4.0 * 4194304 / r.bytes_per_s));  // DRAM-bound
}

TEST_CASE("host plan of a sweep scales with its points and its repetition caps", "[plan]") {
  // rel_noise 0: no loop converges, every one runs to max_reps (100 calls of ~1 ms < max_time_s).
  const std::string head = "name: t\nsettings: {warmup: 2, min_reps: 5, max_reps: 100, rel_noise: 0, max_time_s: 1.0}\n";
  const std::string bench = "benchmarks:\n  - bench: host_reduction\n    axes: {elements: [";
  const double one = host_plan_s(head + bench + "3200000]}\n");
  const double four = host_plan_s(head + bench + "3200000, 3200001, 3200002, 3200003]}\n");
  CHECK(four == Approx(4 * one).epsilon(0.01));
  // Twice max_reps, about twice the point (setup and warm-up stay).
  std::string twice_head = head;
  twice_head.replace(twice_head.find("max_reps: 100"), 13, "max_reps: 200");
  const double twice = host_plan_s(twice_head + bench + "3200000]}\n");
  CHECK(twice > 1.5 * one);
  CHECK(twice < 2.0 * one);
  // A looser rel_noise leaves fewer loops at their caps: the plan shrinks toward min_reps.
  std::string loose_head = head;
  loose_head.replace(loose_head.find("rel_noise: 0,"), 13, "rel_noise: 0.05,");
  const double loose = host_plan_s(loose_head + bench + "3200000]}\n");
  CHECK(loose < 0.3 * one);
  // Deterministic: nothing is measured while planning.
  CHECK(host_plan_s(head + bench + "3200000]}\n") == one);
  // A point the host refuses (fp16 GEMM) plans at its row, a runnable one at its loop.
  const double fp16 = host_plan_s(head + "benchmarks:\n  - bench: host_gemm\n    axes: {m: [256], n: [256], k: [256], dtype: [fp16]}\n");
  CHECK(fp16 == Approx(host_roofline().point_setup_s));
}

TEST_CASE("CUDA benchmarks describe on the CPU: a build without the plugin plans full.yaml", "[plan][cuda_work]") {
  Registry plan_only;  // what a CPU-only build registers for --backend cuda --plan
  cuda_work::register_plan_only(plan_only);
  std::set<std::string> names;
  for (const auto& s : cuda_work::specs()) names.insert(s.name);
  CHECK(names.size() == cuda_work::specs().size());
  CHECK(plan_only.names().size() == names.size());
  for (const auto* b : plan_only.all()) CHECK(b->backend() == Backend::cuda);
  const auto catalog = ptp::vocab::load_gpu_catalog(ptp::vocab::config_root() + "/gpus");
  const Sweep s = load_sweep(kSweeps + "full.yaml", "a100-sxm4-80gb", plan_only);
  CHECK(s.points.size() > 500);
  const Roofline r = gpu_roofline(catalog.get("a100-sxm4-80gb", "test"));
  double gpu_s = 0;
  for (const auto& p : s.points) gpu_s += estimate_point_s(p, r) * p.work.gpus;
  INFO("full.yaml: " << s.points.size() << " points, " << gpu_s / 60 << " GPU-minutes");
  CHECK(gpu_s / 60 <= 60);
  CHECK(gpu_s / 60 >= 10);
  // The stand-ins plan; running one is refused.
  Measurement m(s.points.front().rule);
  CHECK_THROWS_AS(s.points.front().point.bench->run(s.points.front().point, m), ptp::vocab::InputError);
  // Validation (and its messages) is the benchmarks' own.
  CHECK_THROWS_WITH(parse_sweep("name: t\nbenchmarks:\n  - bench: cublaslt_gemm\n    axes: {m: [1], n: [1], k: [1], dtype: [int4]}\n",
                                "t.yaml", "a100-sxm4-80gb", plan_only),
                    Catch::Contains("dtype must be fp32, tf32, fp16, bf16, fp8_e4m3 or fp8_e5m2"));
}

#ifdef PTP_TEST_HAVE_CUDA
TEST_CASE("the CUDA plugin's benchmarks are the CPU descriptions plus run()", "[plan][cuda_work]") {
  std::string why;
  const bool loaded = cuda::load(&why);
  INFO(why);
  REQUIRE(loaded);
  Registry plan_only;
  cuda_work::register_plan_only(plan_only);
  for (const auto* real : Registry::instance().all()) {
    if (real->backend() != Backend::cuda) continue;
    INFO(real->name());
    const auto* stand_in = plan_only.find(real->name());
    REQUIRE(stand_in != nullptr);
    CHECK(stand_in->table() == real->table());
    REQUIRE(stand_in->axes().size() == real->axes().size());
    for (std::size_t i = 0; i < real->axes().size(); ++i) {
      CHECK(stand_in->axes()[i].name == real->axes()[i].name);
      CHECK(stand_in->axes()[i].fallback == real->axes()[i].fallback);
    }
  }
  const Sweep a = load_sweep(kSweeps + "full.yaml", "a100-sxm4-80gb", Registry::instance());
  const Sweep b = load_sweep(kSweeps + "full.yaml", "a100-sxm4-80gb", plan_only);
  REQUIRE(a.points.size() == b.points.size());
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    CHECK(a.points[i].id == b.points[i].id);
    CHECK(a.points[i].work.fields == b.points[i].work.fields);
    CHECK(a.points[i].work.flops == b.points[i].work.flops);
    CHECK(a.points[i].work.bytes == b.points[i].work.bytes);
  }
}

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
  const auto catalog = ptp::vocab::load_gpu_catalog(ptp::vocab::config_root() + "/gpus");
  const Sweep s = load_sweep(kSweeps + "full.yaml", "a100-sxm4-80gb", Registry::instance());
  const double minutes = total_gpu_minutes(s, gpu_roofline(catalog.get("a100-sxm4-80gb", "test")));
  INFO("full.yaml: " << s.points.size() << " points, " << minutes << " GPU-minutes");
  CHECK(s.points.size() > 500);
  CHECK(minutes <= 60);
  CHECK(minutes >= 10);  // the sweep must not be trivially small either
}
#endif
