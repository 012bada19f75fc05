// The fused-attention kernel family (job key attention_kernel, attention_kernel.hpp): FlashAttention-2
// class kernels leave Hopper's and Blackwell's asynchronous tensor cores unused; on older GPUs the
// family changes nothing, and it never touches anything but the attention kernels.
#include <catch2/catch.hpp>

#include "llm_test_support.hpp"
#include "ptp/vocab/attention_kernel.hpp"

using namespace ptp::predict;
using ptp::test::error_of;
using ptp::test::llm_job;
using ptp::test::predict;
using ptp::test::resolve;

namespace {
std::string job_on(const std::string& gpu, const std::string& extra, int seq_len = 8192) {
  return llm_job("llama3-8b", 8, "sharding: fsdp\n" + extra, "bf16", gpu, seq_len);
}

// Forward + backward seconds of one micro-batch's ops, the fused-attention kernels or all the others.
double op_seconds(const std::string& yaml, bool attention) {
  const ResolvedJob job = resolve(yaml);
  double s = 0;
  for (const auto& op : job.workload.ops)
    if ((op.kind == OpKind::fused_attention) == attention) {
      const OpTime t = analytical_op_time(op, job, AnalyticalConstants{});
      s += t.forward_s + t.backward_s;
    }
  return s;
}
}  // namespace

TEST_CASE("each memory convention names a known attention kernel, Megatron's the native one", "[llm][attention]") {
  for (const auto& c : memory_convention_table()) {
    INFO(c.id);
    REQUIRE(find_attention_kernel(c.attention_kernel) != nullptr);
    CHECK(find_attention_kernel(c.attention_kernel)->architecture_native == (c.id == "megatron"));
  }
  // The job key wins over the convention; an implied FSDP convention keeps the policy default's kernels.
  CHECK(resolve(job_on("h100-sxm5-80gb", "memory: {convention: fsdp}\n")).state.attention_kernel->id == "flash2");
  CHECK(resolve(job_on("h100-sxm5-80gb", "memory: {convention: fsdp}\nattention_kernel: cudnn\n"))
            .state.attention_kernel->id == "cudnn");
  CHECK(resolve(job_on("h100-sxm5-80gb", "")).state.attention_kernel->id == "cudnn");
  CHECK(resolve(job_on("h100-sxm5-80gb", "attention_kernel: flash2\n")).state.attention_kernel->id == "flash2");
  // Sharding does not change the stack, so it does not change the kernel or the attention's time
  // (an FSDP convention implied by sharding keeps the policy default's kernel).
  const std::string plain = llm_job("llama3-8b", 8, "", "bf16", "h100-sxm5-80gb", 8192);
  for (const std::string sharding : {"none", "zero1", "zero2", "fsdp"}) {
    INFO(sharding);
    const std::string sharded = plain + "sharding: " + sharding + "\n";
    CHECK(resolve(sharded).state.attention_kernel == resolve(plain).state.attention_kernel);
    CHECK(op_seconds(sharded, true) == Approx(op_seconds(plain, true)));
  }
  // The prediction names the kernel it assumed, and none for a model without fused attention.
  CHECK(predict(job_on("h100-sxm5-80gb", "memory: {convention: fsdp}\n")).attention_kernel == "flash2");
  CHECK(predict("model: resnet50\nprecision: amp_bf16\nbatch_size: 64\ncluster: {gpu: h100-sxm5-80gb, num_gpus: 8}\n")
            .attention_kernel.empty());
}

TEST_CASE("FlashAttention-2 kernels run slower on sm_90+, and only the attention moves", "[llm][attention]") {
  for (const std::string gpu : {"h100-sxm5-80gb", "b200-sxm-180gb"}) {
    INFO(gpu);
    const std::string native_job = job_on(gpu, "attention_kernel: cudnn\n"), fa2_job = job_on(gpu, "attention_kernel: flash2\n");
    const auto native = predict(native_job), fa2 = predict(fa2_job);
    REQUIRE(op_seconds(native_job, true) > 0);
    // Compute-bound at 8k tokens: the attention takes 1 / flash2_async_tensor_core_factor as long.
    CHECK(op_seconds(fa2_job, true) / op_seconds(native_job, true) ==
          Approx(1 / AnalyticalConstants{}.flash2_async_tensor_core_factor).epsilon(0.05));
    CHECK(op_seconds(fa2_job, false) == Approx(op_seconds(native_job, false)));
    CHECK(fa2.iteration_s > native.iteration_s);
    CHECK(fa2.memory.per_gpu_bytes == Approx(native.memory.per_gpu_bytes));
  }
  // Ampere runs both families with synchronous tensor cores: the same step.
  const auto a100_native = predict(job_on("a100-sxm4-80gb", "attention_kernel: cudnn\n"));
  const auto a100_fa2 = predict(job_on("a100-sxm4-80gb", "attention_kernel: flash2\n"));
  CHECK(a100_fa2.iteration_s == Approx(a100_native.iteration_s));
  // Longer sequences put more of the step in attention, so the kernel family matters more.
  auto share = [](int seq) {
    return predict(job_on("h100-sxm5-80gb", "attention_kernel: flash2\n", seq)).iteration_s /
           predict(job_on("h100-sxm5-80gb", "attention_kernel: cudnn\n", seq)).iteration_s;
  };
  CHECK(share(32768) > share(4096));
}

TEST_CASE("an unknown attention kernel is a one-line error naming the key", "[llm][attention]") {
  const std::string e = error_of(job_on("h100-sxm5-80gb", "attention_kernel: flash3\n"));
  CHECK_THAT(e, Catch::Contains("attention_kernel: unknown value 'flash3'"));
  CHECK_THAT(e, Catch::Contains("expected flash2 | cudnn"));
}
