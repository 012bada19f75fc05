#include <catch2/catch.hpp>

#include "ptp/vocab/error.hpp"
#include "ptp/vocab/precision.hpp"

using namespace ptp;

TEST_CASE("every precision named by the job spec has a policy", "[precision]") {
  for (const char* id : {"fp32", "tf32", "fp16", "bf16", "amp_fp16", "amp_bf16", "fp8"})
    CHECK(find_precision_policy(id) != nullptr);
}

TEST_CASE("precision policies encode what each mode does", "[precision]") {
  const auto& fp32 = precision_policy("fp32");
  const auto& tf32 = precision_policy("tf32");
  const auto& amp16 = precision_policy("amp_fp16");
  const auto& ampbf = precision_policy("amp_bf16");
  const auto& fp16 = precision_policy("fp16");
  const auto& fp8 = precision_policy("fp8");
  CHECK(fp32.gemm_math == "fp32");
  CHECK_FALSE(fp32.uses_tensor_cores);
  CHECK(tf32.gemm_math == "tf32");
  CHECK(tf32.activation_bytes == 4);  // TF32 keeps FP32 storage
  CHECK(amp16.gemm_math == "fp16");
  CHECK(amp16.dynamic_loss_scaling);
  CHECK_FALSE(ampbf.dynamic_loss_scaling);  // BF16 has FP32's exponent range
  CHECK(amp16.norm_softmax_bytes == 4);       // autocast keeps norms/softmax in FP32
  CHECK(amp16.master_weight_bytes == 0);      // autocast weights are already FP32
  CHECK(amp16.weight_cast_each_step);
  CHECK(fp16.master_weight_bytes == 4);       // pure FP16 needs an FP32 master copy
  CHECK(fp8.gemm_math == "fp8");
  CHECK(fp8.attention_math == "bf16");
  CHECK(fp8.fp8_scaling);
  CHECK(fp8.min_compute_capability == 89);
  CHECK(precision_policy("bf16").min_compute_capability == 80);
  CHECK(tf32.min_compute_capability == 80);
}

TEST_CASE("unknown precision suggests the nearest id", "[precision]") {
  try {
    precision_policy("amp_fp61");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("amp_fp16"));
  }
}

TEST_CASE("dtype sizes", "[precision]") {
  CHECK(dtype_bytes("fp32") == 4);
  CHECK(dtype_bytes("bf16") == 2);
  CHECK(dtype_bytes("fp8_e4m3") == 1);
  CHECK_THROWS_AS(dtype_bytes("fp12"), InputError);
}
