#include <catch2/catch.hpp>

#include "ptp/vocab/error.hpp"
#include "ptp/vocab/memory_convention.hpp"
#include "ptp/vocab/precision.hpp"

using namespace ptp::vocab;

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
  CHECK(default_memory_convention(amp16).id == "autocast");  // autocast weights are already FP32
  CHECK(training_state_bytes(amp16, default_memory_convention(amp16)).master == 0);
  CHECK(amp16.weight_cast_each_step);
  CHECK(training_state_bytes(fp16, default_memory_convention(fp16)).master == 4);  // FP16 needs an FP32 master
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

// Each convention's copies, per precision (bytes per parameter): the table the memory estimate and
// the optimizer step read.
TEST_CASE("memory conventions store each copy at their documented dtype", "[precision][memory]") {
  const auto& bf16 = precision_policy("bf16");
  auto bytes = [&](const char* convention, const PrecisionPolicy& p, StateOverrides o = {}) {
    return training_state_bytes(p, *find_memory_convention(convention), o);
  };
  // Megatron distributed optimizer: BF16 param + FP32 main grad, FP32 master + Adam m/v (6 + 12/d).
  const auto mega = bytes("megatron", bf16);
  CHECK(mega.param + mega.grad == 6);
  CHECK(mega.master + 2 * mega.optimizer_state == 12);
  CHECK(mega.fp8_weight_copies == 0);                                  // no FP8 GEMMs under BF16
  CHECK(bytes("megatron", precision_policy("fp8")).fp8_weight_copies == 2);  // FP8 weight + transpose
  CHECK(bytes("master_weights", precision_policy("fp8")).fp8_weight_copies == 0);
  // DeepSpeed / Apex O2: 2 + 2 + 12.
  const auto ds = bytes("master_weights", bf16);
  CHECK(ds.param + ds.grad + ds.master + 2 * ds.optimizer_state == 16);
  // autocast and FSDP mixed precision: FP32 weights that are their own master.
  for (const char* c : {"autocast", "fsdp"}) {
    const auto s = bytes(c, bf16);
    CHECK(s.param == 4);
    CHECK(s.master == 0);
    CHECK(s.grad == 4);
  }
  // Pure BF16 (litgpt bf16-true, torchtune): no FP32 copy anywhere.
  const auto pure = bytes("pure", bf16);
  CHECK(pure.param + pure.grad + pure.master + 2 * pure.optimizer_state == 8);
  // Under FP32 every convention is FP32 throughout, with no master copy.
  for (const auto& c : memory_convention_table()) {
    const auto s = training_state_bytes(precision_policy("fp32"), c);
    CHECK(s.param == 4);
    CHECK(s.master == 0);
    CHECK(s.optimizer_state == 4);
  }
  // A job's explicit dtypes win over the convention.
  const auto fp32_grads = bytes("pure", bf16, {"fp32", "", -1, "", ""});
  CHECK(fp32_grads.grad == 4);
  CHECK(fp32_grads.optimizer_state == 2);
  CHECK(bytes("pure", bf16, {"", "", 1, "", ""}).master == 4);
  CHECK(bytes("megatron", bf16, {"", "", 0, "", ""}).master == 0);
}

TEST_CASE("each precision's default convention reproduces its documented copies", "[precision][memory]") {
  for (const auto& p : precision_table()) {
    const auto s = training_state_bytes(p, default_memory_convention(p));
    CHECK(s.optimizer_state == 4);  // FP32 optimizer state for every default
    if (p.weight_cast_each_step) {
      CHECK(s.param == 4);  // autocast
    } else if (p.half_precision) {
      CHECK(s.param == 2);
      CHECK(s.master == 4);
    }
  }
}

TEST_CASE("a quantised QLoRA base holds about 4.5 bits per weight", "[precision][memory]") {
  CHECK(quantized_base_bytes(BaseQuantization::nf4) * 8 == Approx(4.5));
  // Dettmers et al. 2023: double quantisation costs 0.127 bits per parameter over the 4 bits.
  CHECK((quantized_base_bytes(BaseQuantization::nf4_double) * 8 - 4) == Approx(0.127).margin(0.001));
  CHECK(quantized_base_bytes(BaseQuantization::none) == 0);
}

TEST_CASE("the policy states what readers used to infer from its id", "[precision]") {
  for (const auto& p : precision_table()) {
    CAPTURE(p.id);
    CHECK(p.autocast == (p.id == "amp_fp16" || p.id == "amp_bf16"));  // the framework's autocast
    CHECK(p.half_dtype == (p.gemm_math == "fp16" ? "fp16" : "bf16"));  // FP16 recipes keep fp16 tensors
    const bool half_math = p.gemm_math == "fp16" || p.gemm_math == "bf16";
    CHECK(p.gemm_class == (half_math ? "fp16_bf16" : p.gemm_math));  // one calibration class for both
  }
}
