// GEMMs a recipe keeps in 16 bits under FP8/FP4 (job spec low_precision) and multi-token prediction
// run at more depths than the model has modules (mtp_depth): which ops change, what they cost, and
// that neither moves a job whose precision has no narrow GEMMs.
#include <algorithm>
#include <catch2/catch.hpp>

#include "ptp/predict/detail/parallelism.hpp"
#include "llm_test_support.hpp"
#include "ptp/predict/workload_transforms.hpp"

using namespace ptp::predict;
using ptp::test::error_of;
using ptp::test::llm_job;
using ptp::test::op_named;
using ptp::test::predict;
using ptp::test::resolve;

namespace {
const std::string kLayout = "parallelism: {tensor: 2}\nsequence_parallel: true\n";
}  // namespace

TEST_CASE("attention GEMMs kept in BF16 under FP8 run at BF16 math, without FP8 casts or weight copies",
          "[llm][low_precision]") {
  const auto fp8 = resolve(llm_job("llama3-8b", 8, kLayout, "fp8"));
  const auto kept = resolve(llm_job("llama3-8b", 8, kLayout + "low_precision: {bf16_modules: [attention]}\n", "fp8"));
  const auto& qkv = op_named(kept.workload.ops, "layer0.self_attn_qkv");
  CHECK(qkv.high_precision);
  CHECK(op_math_mode(qkv, kept) == "bf16");
  CHECK(op_element_bytes(qkv, kept) == 2);
  CHECK(op_math_mode(op_named(fp8.workload.ops, "layer0.self_attn_qkv"), fp8) == "fp8");
  CHECK_FALSE(op_named(kept.workload.ops, "layer0.mlp_up").high_precision);
  CHECK(op_math_mode(op_named(kept.workload.ops, "layer0.mlp_up"), kept) == "fp8");

  const auto a = predict_analytical(fp8), b = predict_analytical(kept);
  CHECK(b.breakdown.forward > a.breakdown.forward);    // BF16 tensor cores at half the FP8 rate
  CHECK(b.breakdown.precision_casts < a.breakdown.precision_casts);
  CHECK(b.memory.fp8_weight_copies < a.memory.fp8_weight_copies);
  // Llama 3 8B: attention is 4096 x (4096 + 2 x 1024) + 4096 x 4096 of each block's 218M weights.
  const double attention_share = (4096.0 * 6144 + 4096.0 * 4096) / (4096.0 * 6144 + 4096.0 * 4096 + 3 * 4096.0 * 14336);
  CHECK(b.memory.fp8_weight_copies == Approx(a.memory.fp8_weight_copies * (1 - attention_share)).epsilon(1e-6));
}

TEST_CASE("low_precision changes nothing when the precision's GEMMs are already 16-bit", "[llm][low_precision]") {
  const std::string kept = kLayout + "low_precision: {bf16_first_layers: 2, bf16_last_layers: 2, bf16_modules: "
                                     "[attention, mlp, lm_head]}\n";
  for (const std::string precision : {"bf16", "amp_bf16", "fp16"}) {
    const auto a = predict(llm_job("llama3-8b", 8, kLayout, precision));
    const auto b = predict(llm_job("llama3-8b", 8, kept, precision));
    CHECK(b.iteration_s == a.iteration_s);
    CHECK(b.memory.allocated_bytes == a.memory.allocated_bytes);
    // ... and says so.
    CHECK(std::any_of(b.warnings.begin(), b.warnings.end(),
                      [](const std::string& w) { return w.find("low_precision has no effect") != std::string::npos; }));
    CHECK(std::none_of(a.warnings.begin(), a.warnings.end(),
                       [](const std::string& w) { return w.find("low_precision") != std::string::npos; }));
  }
}

TEST_CASE("bf16_first_layers and bf16_last_layers keep whole blocks of the main stack", "[llm][low_precision]") {
  const auto job =
      resolve(llm_job("llama3-8b", 8, kLayout + "low_precision: {bf16_first_layers: 1, bf16_last_layers: 2}\n", "fp4",
                      "b200-sxm-180gb"));
  const auto& ops = job.workload.ops;
  CHECK(main_stack_blocks(job.workload) == 32);
  for (const std::string name : {"layer0.self_attn_qkv", "layer0.mlp_down", "layer30.mlp_up", "layer31.self_attn_out"})
    CHECK(op_named(ops, name).high_precision);
  for (const std::string name : {"layer1.self_attn_qkv", "layer29.mlp_down", "lm_head"})
    CHECK_FALSE(op_named(ops, name).high_precision);
  CHECK(op_math_mode(op_named(ops, "layer31.mlp_up"), job) == "bf16");
  CHECK(op_math_mode(op_named(ops, "layer29.mlp_up"), job) == "fp4");
  // More kept blocks, a slower FP4 step.
  const auto none = predict(llm_job("llama3-8b", 8, kLayout, "fp4", "b200-sxm-180gb"));
  CHECK(predict_analytical(job).iteration_s > none.iteration_s);
}

TEST_CASE("mtp_depth 2 runs Nemotron 3 Super's one MTP module twice on the same weights", "[llm][low_precision]") {
  const std::string layout = "parallelism: {expert: 64}\n";
  const auto one = resolve(llm_job("nemotron-3-super", 64, layout, "fp8", "gb300", 8192));
  const auto two = resolve(llm_job("nemotron-3-super", 64, layout + "mtp_depth: 2\n", "fp8", "gb300", 8192));
  auto mtp = [](const ResolvedJob& j, double Op::*field) {
    double s = 0;
    for (const auto& op : j.workload.ops)
      if (op.name.rfind("mtp", 0) == 0) s += op.*field;
    return s;
  };
  CHECK(mtp(two, &Op::fwd_flops) == Approx(2 * mtp(one, &Op::fwd_flops)));
  CHECK(mtp(two, &Op::params) == Approx(mtp(one, &Op::params)));
  CHECK(two.workload.params() == Approx(one.workload.params()));
  CHECK(count_blocks(two.workload) == count_blocks(one.workload) + 1);
  CHECK(predict_analytical(two).iteration_s > predict_analytical(one).iteration_s);
  // mtp_depth 1 is the model's own depth.
  const auto same = resolve(llm_job("nemotron-3-super", 64, layout + "mtp_depth: 1\n", "fp8", "gb300", 8192));
  CHECK(predict_analytical(same).iteration_s == predict_analytical(one).iteration_s);
}

TEST_CASE("bad low_precision and mtp_depth values are one-line errors naming the field", "[llm][low_precision]") {
  CHECK_THAT(error_of(llm_job("llama3-8b", 8, "low_precision: {bf16_modules: [mpt]}\n", "fp8")),
             Catch::Contains("low_precision.bf16_modules[0]") && Catch::Contains("did you mean"));
  CHECK_THAT(error_of(llm_job("llama3-8b", 8, "low_precision: {bf16_last_layers: 30, bf16_first_layers: 3}\n", "fp8")),
             Catch::Contains("low_precision.bf16_last_layers") && Catch::Contains("32 blocks"));
  CHECK_THAT(error_of(llm_job("llama3-8b", 8, "low_precision: [attention]\n", "fp8")),
             Catch::Contains("low_precision") && Catch::Contains("expected a mapping"));
  CHECK_THAT(error_of(llm_job("llama3-8b", 8, "low_precision: {bf16_layers: 2}\n", "fp8")),
             Catch::Contains("bf16_layers"));
  CHECK_THAT(error_of(llm_job("llama3-8b", 8, "mtp_depth: 2\n", "fp8")),
             Catch::Contains("mtp_depth") && Catch::Contains("no multi-token prediction module"));
  CHECK_THAT(error_of(llm_job("nemotron-3-super", 64, "mtp_depth: 0\n", "fp8", "gb300", 8192)),
             Catch::Contains("mtp_depth"));
}

TEST_CASE("low_precision and mtp_depth survive the job spec's YAML round trip", "[llm][low_precision]") {
  const auto spec = parse_job_spec(YamlReader::load_string(
      llm_job("nemotron-3-super", 64,
              "mtp_depth: 2\nlow_precision: {bf16_last_layers: 14, bf16_modules: [mtp, attention, moe_latent]}\n", "fp4",
              "gb300", 8192),
      "job.yaml"));
  const auto again = parse_job_spec(YamlReader::load_string(job_spec_to_yaml(spec), "again.yaml"));
  CHECK(again.mtp_depth == 2);
  CHECK(again.low_precision.bf16_last_layers == 14);
  CHECK(again.low_precision.bf16_first_layers == 0);
  CHECK(again.low_precision.bf16_modules == std::vector<std::string>{"mtp", "attention", "moe_latent"});
}
