// The evaluation's mapping from published rows to job specs (framework defaults it relies on) and
// its error statistics.
#include <catch2/catch.hpp>

#include "ptp/eval/llm_rows.hpp"

using namespace ptp::predict;
using namespace ptp::eval;

namespace {
const char* kHeader =
    "source_ref,model,task,framework,precision,precision_as_published,gpu,num_gpus,gpus_per_node,batch_size,seq_len,"
    "grad_accum,global_batch_size,tp,pp,cp,vp,ep,sharding,activation_checkpointing,step_time_s,quality_flag,notes\n";
const std::vector<std::string> kZoo{"llama3-70b", "llama3.1-405b", "mpt-7b"};

EvalRow row(const std::string& line) {
  static std::vector<CsvTable> keep;  // rows refer into their table
  keep.push_back(CsvTable::parse(std::string(kHeader) + line + "\n", "runs.csv"));
  return make_eval_row(keep.back(), keep.back().rows().front(), kZoo);
}
}  // namespace

TEST_CASE("Megatron rows use the distributed optimizer and sequence parallel", "[llm][eval]") {
  const auto e = row("a@b:docs/perf.md:10,llama3-70b,pretrain,Megatron-Bridge (NeMo),fp8,FP8,h100-sxm5-80gb,64,8,1,"
                     "8192,,256,4,8,1,5,,none,,20.0,,NeMo 26.04 container");
  REQUIRE(e.skip_reason.empty());
  CHECK(e.sharding == "zero1");
  CHECK(e.release == "NeMo 26.04");
  CHECK_THAT(e.job_yaml, Catch::Contains("sequence_parallel: true") && Catch::Contains("global_batch_size: 256") &&
                             Catch::Contains("virtual_pipeline: 5"));
}

TEST_CASE("torchtitan pipeline rows run micro-batches of one sequence", "[llm][eval]") {
  const auto e = row("t@c:bench.md:5,llama3.1-405b,pretrain,torchtitan (PyTorch FSDP2/DTensor),fp8,fp8,h100-sxm5-96gb,"
                     "512,8,32,8192,,256,8,8,1,,,fsdp,full,32,,");
  REQUIRE(e.skip_reason.empty());
  // 256 sequences over 8 data-parallel ranks of micro-batch 1: 32 micro-batches per step.
  CHECK_THAT(e.job_yaml, Catch::Contains("\nbatch_size: 1\n") && Catch::Contains("global_batch_size: 256"));
}

TEST_CASE("GB200 racks are 64-GPU NVLink domains", "[llm][eval]") {
  const auto e = row("a@b:p.md:1,llama3-70b,pretrain,Megatron-Bridge,fp8,FP8,gb200,128,4,1,8192,,128,1,4,1,,,none,,5,,");
  CHECK_THAT(e.job_yaml, Catch::Contains("gpus_per_node: 64"));
}

TEST_CASE("rows that cannot be stated as a job are skipped with a reason", "[llm][eval]") {
  CHECK_THAT(row("a@b:p.md:1,llama3-70b,finetune_lora,NeMo,fp8,FP8,h100-sxm5-80gb,8,8,1,4096,,32,2,4,1,,,,,6,,")
                 .skip_reason,
             Catch::Contains("LoRA"));
  CHECK_THAT(row("a@b:p.md:1,,pretrain,Megatron-Bridge,fp8,FP8,gb200,8,4,1,4096,,512,1,1,1,,8,,,8,,"
                 "source canonical id: qwen3-30b-a3b (moe)")
                 .skip_reason,
             Catch::Contains("not in the zoo") && Catch::Contains("qwen3-30b-a3b"));
  CHECK_THAT(row("a@b:p.md:1,mpt-7b,pretrain,llm-foundry,amp_bf16,x,a100-sxm4-80gb,8,8,,2048,,,1,1,1,,,fsdp,none,3,,")
                 .skip_reason,
             Catch::Contains("micro-batch"));
  CHECK_THAT(row("a@b:p.md:1,mpt-7b,pretrain,llm.c,bf16,x,a100-sxm4-80gb,8,8,4,2048,,,1,1,1,,,zero1,none,0.1,"
                 "approximate;implausible_exceeds_peak,")
                 .skip_reason,
             Catch::Contains("implausible"));
}

TEST_CASE("error statistics", "[llm][eval]") {
  const auto s = error_stats({{1.1, 1.0}, {0.8, 1.0}, {1.0, 1.0}});
  CHECK(s.n == 3);
  CHECK(s.mape == Approx(10.0));
  CHECK(s.median_ape == Approx(10.0));
  CHECK(s.bias == Approx(100 * (std::cbrt(1.1 * 0.8) - 1)));
  CHECK(gpu_family("h100-sxm5-96gb") == "h100");
  CHECK(gpu_family("gb200") == "gb200");
}
