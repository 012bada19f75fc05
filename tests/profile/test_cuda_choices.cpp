// CPU-side decisions of the CUDA backend (libprofile/src/cuda_choices.hpp, kernel_math.hpp): they
// run here without a GPU, so the choices a first GPU run depends on are pinned by tests.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "ptp/profile/detail/cuda_choices.hpp"
#include "ptp/profile/detail/kernel_math.hpp"
#include "ptp/vocab/error.hpp"

using namespace ptp::profile;
using namespace ptp::profile::cuda_choices;

TEST_CASE("GEMM dtype_compute is the math mode, accumulator goes to notes", "[cuda_choices][gemm]") {
  for (const char* d : {"fp32", "tf32", "fp16", "bf16"}) {
    const GemmPrecision g = gemm_precision(d, "fp32", "fwd");
    CHECK(g.math == d);
    CHECK(g.accum == "fp32");
    CHECK(g.notes == "accum=fp32");
    CHECK_FALSE(g.fast_accum);
  }
  CHECK(gemm_precision("fp32", "fp32", "fwd").compute == GemmCompute::f32);
  CHECK(gemm_precision("tf32", "fp32", "fwd").compute == GemmCompute::f32_fast_tf32);
  CHECK(gemm_precision("bf16", "fp32", "fwd").compute == GemmCompute::f32);
  const GemmPrecision h = gemm_precision("fp16", "fp16", "fwd");  // fp16 math with fp16 accumulation
  CHECK(h.math == "fp16");
  CHECK(h.compute == GemmCompute::f16);
  CHECK(h.notes == "accum=fp16");
  CHECK(gemm_precision("fp8_e4m3", "fp32", "fwd").math == "fp8");
  CHECK(gemm_precision("fp8_e5m2", "fp32", "dgrad").math == "fp8");
  CHECK_THROWS_AS(gemm_precision("bf16", "fp16", "fwd"), ptp::vocab::InputError);
  CHECK_THROWS_AS(gemm_precision("fp16", "fp64", "fwd"), ptp::vocab::InputError);
  CHECK_THROWS_AS(gemm_precision("fp16", "fp32", "bwd"), ptp::vocab::InputError);
  CHECK_THROWS_AS(gemm_precision("int8", "fp32", "fwd"), ptp::vocab::InputError);
}

TEST_CASE("FP8 GEMMs: E5M2 pairs with E4M3, fast accumulation on the forward pass", "[cuda_choices][gemm][fp8]") {
  const GemmPrecision e4 = gemm_precision("fp8_e4m3", "fp32", "fwd");
  CHECK(e4.a == "fp8_e4m3");
  CHECK(e4.b == "fp8_e4m3");
  CHECK(e4.out == "bf16");
  CHECK(e4.compute == GemmCompute::f32);
  CHECK(e4.fast_accum);
  CHECK(e4.notes.find("fast_accum=1") != std::string::npos);
  CHECK(e4.notes.find("accum=fp32") != std::string::npos);
  for (const char* pass : {"fwd", "dgrad", "wgrad"}) {
    const GemmPrecision e5 = gemm_precision("fp8_e5m2", "fp32", pass);
    CHECK(e5.a == "fp8_e4m3");  // cuBLASLt rejects E5M2 x E5M2
    CHECK(e5.b == "fp8_e5m2");
    CHECK_FALSE((e5.a == "fp8_e5m2" && e5.b == "fp8_e5m2"));
  }
  for (const char* pass : {"dgrad", "wgrad"}) {  // Transformer Engine: split accumulator in backward
    CHECK_FALSE(gemm_precision("fp8_e4m3", "fp32", pass).fast_accum);
    CHECK(gemm_precision("fp8_e5m2", "fp32", pass).notes.find("fast_accum=0") != std::string::npos);
  }
  CHECK(gemm_precision("fp8_e5m2", "fp32", "fwd").fast_accum);
  CHECK_THROWS_AS(gemm_precision("fp8_e4m3", "fp16", "fwd"), ptp::vocab::InputError);
}

TEST_CASE("conv dtype_compute is the math mode, never fp32_acc", "[cuda_choices][conv]") {
  for (const char* d : {"fp32", "tf32", "fp16", "bf16"}) {
    CHECK(conv_precision(d).math == d);
    CHECK(conv_precision(d).notes == "accum=fp32");
  }
  CHECK_THROWS_AS(conv_precision("fp8_e4m3"), ptp::vocab::InputError);
}

TEST_CASE("cuDNN engines are filtered by numerical notes as frameworks do", "[cuda_choices][conv]") {
  const EngineNotes plain{false, false}, tc{true, false}, tc_down{true, true}, down{false, true};
  CHECK(engine_allowed(plain, "fp32"));
  CHECK_FALSE(engine_allowed(tc, "fp32"));
  CHECK_FALSE(engine_allowed(down, "fp32"));
  CHECK_FALSE(engine_allowed(tc_down, "fp32"));
  CHECK(engine_allowed(tc, "tf32"));
  CHECK(engine_allowed(tc_down, "tf32"));
  CHECK_FALSE(engine_allowed(plain, "tf32"));
  CHECK_FALSE(engine_allowed(down, "tf32"));
  for (const char* m : {"fp16", "bf16"})
    for (const EngineNotes& n : {plain, tc, tc_down, down}) CHECK(engine_allowed(n, m));

  // Heuristic order is kept; a list the filter empties yields nothing to try.
  const std::vector<EngineNotes> heur = {tc_down, plain, tc, down, plain};
  CHECK(engines_to_try(heur, "fp32") == std::vector<std::size_t>{1, 4});
  CHECK(engines_to_try(heur, "tf32") == std::vector<std::size_t>{0, 2});
  CHECK(engines_to_try(heur, "fp16") == std::vector<std::size_t>{0, 1, 2, 3, 4});
  CHECK(engines_to_try({tc, tc_down}, "fp32").empty());
}

TEST_CASE("collective element counts and the zero-element skip rule", "[cuda_choices][nccl]") {
  CollectiveCount c = collective_count("all_reduce", 1024, 4, 8);
  CHECK(c.count == 256);
  CHECK(c.bytes == 1024);
  CHECK(c.skip_reason.empty());

  c = collective_count("all_gather", 1000, 2, 8);  // 500 elements -> 62 per rank -> 496
  CHECK(c.per_rank == 62);
  CHECK(c.count == 496);
  CHECK(c.bytes == 992);
  CHECK(c.skip_reason.empty());

  c = collective_count("reduce_scatter", 16, 4, 8);  // 4 elements, fewer than one per rank
  CHECK(c.per_rank == 0);
  CHECK(c.skip_reason.find("per rank (8 ranks)") != std::string::npos);
  CHECK_FALSE(collective_count("all_reduce", 16, 4, 8).skip_reason.size());  // 4 elements are fine

  c = collective_count("all_reduce", 2, 4, 2);  // less than one fp32 element
  CHECK(c.count == 0);
  CHECK_FALSE(c.skip_reason.empty());
  CHECK(collective_count("broadcast", 3, 2, 4).count == 1);
  CHECK(collective_count("send_recv", 1, 2, 2).skip_reason.size() > 0);
  CHECK_THROWS_AS(collective_count("all_reduce", 8, 4, 0), ptp::vocab::InputError);
}

TEST_CASE("collective iterations make a sample last about 1 ms", "[cuda_choices][nccl]") {
  CHECK(collective_iterations(10e-6) == 100);  // a 10 us small-message call: 100 per sample
  CHECK(collective_iterations(0.3e-3) == 4);
  CHECK(collective_iterations(1e-3) == 1);
  CHECK(collective_iterations(50e-3) == 1);  // large messages: one call per sample
  CHECK(collective_iterations(1e-9) == 1000);  // capped
  CHECK(collective_iterations(0) == 1000);
  CHECK(collective_iterations(std::nan("")) == 1000);
  for (double t : {3e-6, 17e-6, 90e-6, 400e-6}) CHECK(collective_iterations(t) * t >= 1e-3 * 0.999);
  CHECK(collective_iterations(2e-6, 1e-3, 200) == 200);
  CHECK(collective_watchdog_s(0.25) == 60);
  CHECK(collective_watchdog_s(10) == 200);
}

TEST_CASE("random fill hash: uniform in [-1, 1], seeds differ, deterministic", "[cuda_choices][fill]") {
  using kernel_math::uniform;
  double sum = 0, sq = 0, lo = 1, hi = -1;
  int zeros = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const double x = uniform(static_cast<std::uint64_t>(i), 7);
    sum += x;
    sq += x * x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    zeros += x == 0;
  }
  CHECK(lo >= -1.0);
  CHECK(hi <= 1.0);
  CHECK(lo < -0.999);
  CHECK(hi > 0.999);
  CHECK(std::abs(sum / n) < 0.01);             // mean 0
  CHECK(sq / n == Approx(1.0 / 3).margin(0.01));  // variance of U(-1, 1)
  CHECK(zeros < 5);
  CHECK(uniform(12345, 1) == uniform(12345, 1));
  CHECK(uniform(12345, 1) != uniform(12345, 2));
  CHECK(uniform(1ull << 33, 1) != uniform(0, 1));  // high index bits matter
  const float x = uniform(3, 3, 0.0f, 1e-4f);
  CHECK(x >= 0.0f);
  CHECK(x <= 1e-4f);
  std::set<std::uint32_t> distinct;
  for (std::uint64_t i = 0; i < 4096; ++i) distinct.insert(kernel_math::hash32(i, 0));
  CHECK(distinct.size() > 4090);
}

TEST_CASE("16-byte vector split of the memory-bound kernels", "[cuda_choices][kernels]") {
  using namespace kernel_math;
  CHECK(vec_elems(4) == 4);
  CHECK(vec_elems(2) == 8);
  CHECK(vec_elems(1) == 16);
  CHECK(vec_elems(16) == 1);
  for (std::size_t n : {0u, 1u, 7u, 8u, 9u, 1000u, 1003u}) {
    const VecSplit s = vec_split(n, 8);
    CHECK(s.vectors * 8 == s.tail_begin);
    CHECK(s.tail_begin <= n);
    CHECK(n - s.tail_begin < 8);  // scalar tail shorter than one vector
  }
  CHECK(vec_split(1003, 4).vectors == 250);
  CHECK(vec_split(1003, 4).tail_begin == 1000);
}

TEST_CASE("CUPTI kernel names become stable, readable kernel_name cells", "[cuda_choices][cupti]") {
  // Mangled names as CUPTI reported them on the first H100 run (nvcc's anonymous-namespace hashes
  // change with every build; the demangled name does not).
  CHECK(kernel_display_name("_ZN3ptp7profile4cuda57_GLOBAL__N__65fe97f5_19_cuda_elementwise_cu_3e98a669_"
                            "625318elementwise_kernelI13__nv_bfloat16EEvNS2_2OpEPKT_S8_PS6_mj") ==
        "ptp::profile::cuda::(anonymous namespace)::elementwise_kernel<__nv_bfloat16>");
  CHECK(kernel_display_name("_ZN3ptp7profile4cuda55_GLOBAL__N__8bffdc77_17_cuda_optimizer_cu_3e98a669_"
                            "638413weight_updateENS2_4AlgoENS2_5HyperEPfPKfS7_m") ==
        "ptp::profile::cuda::(anonymous namespace)::weight_update");
  CHECK(kernel_display_name("_ZN5cudnn19engines_precompiled16nchwToNhwcKernelI6__halfS2_fLb0ELb1EL21cudnnKernelDataType_"
                            "t0EEEvNS0_18nchw2nhwc_params_tIT1_EEPKT_PT0_") ==
        "cudnn::engines_precompiled::nchwToNhwcKernel<__half, __half, float, false, true, (cudnnKernelDataType_t)0>");
  // Plain names and names the demangler rejects are kept as they are.
  CHECK(kernel_display_name("nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT") == "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT");
  CHECK(kernel_display_name("_Znot_a_name") == "_Znot_a_name");
  CHECK(kernel_display_name("").empty());
}
