// Mixture-of-experts models: parameter counts of the routed MLPs, expert-parallel weight split,
// the all-to-all on the critical path, and the layouts Megatron needs for them.
#include <catch2/catch.hpp>

#include "llm_test_support.hpp"

using namespace ptp::predict;
using ptp::test::error_of;
using ptp::test::llm_job;
using ptp::test::predict;
using ptp::test::resolve;

TEST_CASE("MoE zoo models match their published parameter counts", "[llm][moe]") {
  auto params = [](const std::string& id) { return resolve(llm_job(id, 1, "", "bf16", "b200-sxm-180gb", 4096)).workload.params(); };
  CHECK(params("qwen3-30b-a3b") == Approx(30.532e9).epsilon(0.01));
  CHECK(params("qwen3-235b-a22b") == Approx(235.09e9).epsilon(0.01));
  CHECK(params("gpt-oss-120b") == Approx(116.83e9).epsilon(0.01));
  CHECK(params("deepseek-v3") == Approx(685e9).epsilon(0.01));  // with the MTP module
  CHECK(params("kimi-k2") == Approx(1026.4e9).epsilon(0.01));    // DeepSeek-V3 layout, 384 experts, no MTP
}

TEST_CASE("MoE FLOPs follow the active parameters, not the total", "[llm][moe]") {
  // Qwen3-30B-A3B activates 3.3B parameters per token, 0.31B of them the embedding table (a lookup).
  const auto job = resolve(llm_job("qwen3-30b-a3b", 1, "", "bf16", "b200-sxm-180gb", 4096));
  const double per_token = model_flops_per_microbatch(job.workload) / 4096;
  const double attention = 12.0 * 48 * 4096 * 4096;
  CHECK((per_token - attention) / 6 == Approx(3.35e9 - 151936.0 * 2048).epsilon(0.02));
}

TEST_CASE("expert parallelism splits the experts' weights, not their FLOPs", "[llm][moe]") {
  const auto one = resolve(llm_job("qwen3-30b-a3b", 8, "", "bf16", "b200-sxm-180gb", 4096));
  const auto ep8 = resolve(llm_job("qwen3-30b-a3b", 8, "parallelism: {expert: 8}\n", "bf16", "b200-sxm-180gb", 4096));
  const auto s1 = partition_stages(one.workload, make_layout(one));
  const auto s8 = partition_stages(ep8.workload, make_layout(ep8));
  CHECK(s8[0].expert_params == Approx(s1[0].expert_params / 8));
  CHECK(s8[0].params - s8[0].expert_params == Approx(s1[0].params - s1[0].expert_params));
  double f1 = 0, f8 = 0;
  for (const auto& op : s1[0].ops) f1 += op.fwd_flops;
  for (const auto& op : s8[0].ops) f8 += op.fwd_flops;
  CHECK(f8 == Approx(f1));
  const auto p = predict(llm_job("qwen3-30b-a3b", 8, "parallelism: {expert: 8}\nsharding: zero1\n", "fp8",
                                 "b200-sxm-180gb", 4096, 64));
  CHECK(p.breakdown.ep_communication > 0);
  CHECK(p.memory.weights < predict(llm_job("qwen3-30b-a3b", 8, "sharding: zero1\n", "fp8", "b200-sxm-180gb", 4096, 64))
                               .memory.weights / 4);
}

TEST_CASE("Transformer Engine runs a GEMM per local expert, torchtitan one grouped kernel", "[llm][moe]") {
  // Qwen3-30B-A3B on EP 8: 16 local experts, each seeing 8 x 4096 x 8 / 128 = 2048 rows per micro-batch.
  auto job = [](const std::string& convention, int micro_batch) {
    std::string y = llm_job("qwen3-30b-a3b", 8, "parallelism: {expert: 8}\nsharding: zero1\n" + convention, "fp8",
                            "b200-sxm-180gb", 4096, 512);
    y.replace(y.find("batch_size: 1"), 13, "batch_size: " + std::to_string(micro_batch));
    return y;
  };
  const std::string grouped = "memory: {convention: fsdp}\nattention_kernel: cudnn\n";  // only the GEMMs differ
  auto expert_up = [](const ResolvedJob& r) {
    const auto stages = partition_stages(r.workload, make_layout(r));
    for (const auto& op : stages[0].ops)
      if (op.name.find("expert_up") != std::string::npos) return op;
    FAIL("no expert_up op");
    return Op{};
  };
  const auto te = resolve(job("", 1)), titan = resolve(job(grouped, 1));
  CHECK(te.state.computation.gemm_per_expert);
  CHECK_FALSE(titan.state.computation.gemm_per_expert);
  CHECK(expert_up(te).repeats == 16);
  CHECK(expert_up(titan).repeats == 1);
  CHECK(expert_up(te).fwd_flops == Approx(expert_up(titan).fwd_flops));
  // Same FLOPs; the per-expert kernels add a latency and a launch each, which matter less as each
  // expert's GEMM grows with the micro-batch.
  const auto slow1 = predict(job("", 1)), fast1 = predict(job(grouped, 1));
  const auto slow8 = predict(job("", 8)), fast8 = predict(job(grouped, 8));
  CHECK(slow1.breakdown.forward > fast1.breakdown.forward);
  CHECK(slow1.breakdown.backward > fast1.breakdown.backward);
  CHECK(slow1.breakdown.forward / fast1.breakdown.forward > slow8.breakdown.forward / fast8.breakdown.forward);
}

TEST_CASE("expert layouts are validated", "[llm][moe]") {
  // 128 experts: 3 does not divide them.
  CHECK_THAT(error_of(llm_job("qwen3-30b-a3b", 6, "parallelism: {expert: 3}\n")),
             Catch::Contains("parallelism.expert") && Catch::Contains("128 experts"));
  // EP ranks come out of tensor x context x data: 16 > 8.
  CHECK_THAT(error_of(llm_job("qwen3-30b-a3b", 16, "parallelism: {pipeline: 2, expert: 16}\n")),
             Catch::Contains("parallelism.expert") && Catch::Contains("tensor x context x data"));
}

TEST_CASE("DeepSeek-V3's 61 layers + MTP split over 16 stages with embedding and loss as layers", "[llm][moe]") {
  CHECK(error_of(llm_job("deepseek-v3", 256, "parallelism: {pipeline: 16, expert: 8}\n", "fp8", "b200-sxm-180gb")).empty());
  const auto job = resolve(llm_job("deepseek-v3", 256, "parallelism: {pipeline: 16, expert: 8}\n", "fp8", "b200-sxm-180gb"));
  CHECK(count_blocks(job.workload) == 62);
}

TEST_CASE("Llama 4 Scout: every layer routes to 1 of 16 experts next to a shared expert", "[llm][moe]") {
  const auto job = resolve(llm_job("llama4-scout", 1, "", "bf16", "gb200", 8192));
  // The text stack of the 109B model (the rest is its vision encoder).
  CHECK(job.workload.params() == Approx(107.77e9).epsilon(0.01));
  // 17B active: attention, one routed and the shared expert per layer, the embedding and the head.
  const double per_token = model_flops_per_microbatch(job.workload) / 8192;
  const double attention = 12.0 * 48 * 8192 * 5120;
  CHECK((per_token - attention) / 6 == Approx(17.2e9 - 202048.0 * 5120).epsilon(0.03));
}
