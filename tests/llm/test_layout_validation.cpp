// Layouts that cannot run are refused with errors that name the field and the numbers involved.
#include <catch2/catch.hpp>

#include "llm_test_support.hpp"

using namespace ptp::predict;
using ptp::test::error_of;
using ptp::test::llm_job;

TEST_CASE("a consistent Megatron layout resolves with the derived data-parallel degree", "[llm][validation]") {
  const auto job = ptp::test::resolve(
      llm_job("llama3-70b", 256, "parallelism: {tensor: 4, pipeline: 4, virtual_pipeline: 5}\n", "bf16",
              "h100-sxm5-80gb", 8192, 512));
  CHECK(job.data_parallel == 16);
  CHECK(job.job.grad_accum == 32);  // 512 / (1 x 16)
}

TEST_CASE("tensor x pipeline x context must divide num_gpus", "[llm][validation]") {
  CHECK_THAT(error_of(llm_job("llama3-70b", 24, "parallelism: {tensor: 8, pipeline: 2}\n")),
             Catch::Contains("parallelism") && Catch::Contains("16") && Catch::Contains("24"));
  CHECK_THAT(error_of(llm_job("llama3-70b", 64, "parallelism: {tensor: 8, data: 4}\n")),
             Catch::Contains("parallelism.data") && Catch::Contains("8"));
}

TEST_CASE("the tensor degree must divide the attention heads", "[llm][validation]") {
  // Llama 3 70B has 64 heads: 6 divides the 48 GPUs but not the heads.
  CHECK_THAT(error_of(llm_job("llama3-70b", 48, "parallelism: {tensor: 6}\n")),
             Catch::Contains("parallelism.tensor") && Catch::Contains("64 attention heads"));
  CHECK(error_of(llm_job("llama3-70b", 64, "parallelism: {tensor: 8}\n")).empty());
}

TEST_CASE("every pipeline x virtual_pipeline chunk must hold a layer and uneven splits are accepted",
          "[llm][validation]") {
  // 80 layers over 3 stages (27 + 27 + 26) or 4 x 3 chunks: uneven, as a Megatron pipeline layout runs them.
  CHECK(error_of(llm_job("llama3-70b", 24, "parallelism: {pipeline: 3}\n")).empty());
  CHECK(error_of(llm_job("llama3-70b", 32, "parallelism: {pipeline: 4, virtual_pipeline: 3}\n")).empty());
  CHECK(error_of(llm_job("llama3-70b", 32, "parallelism: {pipeline: 4, virtual_pipeline: 5}\n")).empty());
  // 80 layers cannot fill 16 x 8 = 128 chunks: the interleaving degree is named; without one, the pipeline.
  CHECK_THAT(error_of(llm_job("llama3-70b", 128, "parallelism: {pipeline: 16, virtual_pipeline: 8}\n")),
             Catch::Contains("parallelism.virtual_pipeline") && Catch::Contains("80 layers"));
  CHECK_THAT(error_of(llm_job("llama3-8b", 64, "parallelism: {pipeline: 64}\n")),
             Catch::Contains("parallelism.pipeline") && Catch::Contains("32 layers"));
  // Interleaving needs a pipeline.
  CHECK_THAT(error_of(llm_job("llama3-70b", 8, "parallelism: {virtual_pipeline: 2}\n")),
             Catch::Contains("parallelism.virtual_pipeline") && Catch::Contains("pipeline > 1"));
}

TEST_CASE("126 layers split over 8 x 8 chunks with the embedding and loss as layers, with a warning",
          "[llm][validation]") {
  const std::string job = llm_job("llama3.1-405b", 512, "parallelism: {tensor: 8, pipeline: 8, virtual_pipeline: 8}\n"
                                  "sequence_parallel: true\n", "bf16", "h100-sxm5-80gb", 8192, 512);
  REQUIRE(error_of(job).empty());
  const auto p = ptp::test::predict(job);
  bool warned = false;
  for (const auto& w : p.warnings) warned |= w.find("account_for_embedding") != std::string::npos;
  CHECK(warned);
  // 126 over 5 stages: neither 126 nor 128 divides, so the stages take 26, 25, 25, 25, 25 layers.
  const auto five = ptp::test::predict(llm_job("llama3.1-405b", 40, "parallelism: {tensor: 8, pipeline: 5}\n"));
  bool uneven = false;
  for (const auto& w : five.warnings) uneven |= w.find("the first 1 take 26 layers, the rest 25") != std::string::npos;
  CHECK(uneven);
}

TEST_CASE("context parallel needs the sequence to split into 2 x cp chunks", "[llm][validation]") {
  CHECK_THAT(error_of(llm_job("llama3-8b", 8, "parallelism: {context: 4}\n", "bf16", "h100-sxm5-80gb", 4100)),
             Catch::Contains("parallelism.context") && Catch::Contains("4100"));
  CHECK(error_of(llm_job("llama3-8b", 8, "parallelism: {context: 4}\n", "bf16", "h100-sxm5-80gb", 8192)).empty());
}

TEST_CASE("expert parallelism needs experts that divide", "[llm][validation]") {
  CHECK_THAT(error_of(llm_job("llama3-8b", 8, "parallelism: {expert: 2}\n")),
             Catch::Contains("parallelism.expert") && Catch::Contains("no experts"));
}

TEST_CASE("model parallelism is refused for non-transformer models", "[llm][validation]") {
  const std::string job = "model: resnet50\nprecision: amp_bf16\nbatch_size: 32\n"
                          "cluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\nparallelism: {tensor: 2}\n";
  CHECK_THAT(error_of(job), Catch::Contains("parallelism") && Catch::Contains("transformer"));
}

TEST_CASE("the global batch must be whole micro-batches on every data-parallel rank", "[llm][validation]") {
  CHECK_THAT(error_of(llm_job("llama3-8b", 16, "parallelism: {tensor: 2}\n", "bf16", "h100-sxm5-80gb", 4096, 12)),
             Catch::Contains("global_batch_size") && Catch::Contains("8"));
}

TEST_CASE("invalid layouts become sweep rows marked invalid", "[llm][validation]") {
  const auto job = parse_job_spec(YamlReader::load_string(llm_job("llama3-70b", 48, "parallelism: {tensor: 6}\n"),
                                                          "job.yaml"));
  const auto p = invalid_prediction(job, error_of(llm_job("llama3-70b", 48, "parallelism: {tensor: 6}\n")));
  CHECK_FALSE(p.valid);
  CHECK_THAT(p.error, Catch::Contains("parallelism.tensor"));
  CHECK(p.layout.tensor == 6);
  CHECK(p.iteration_s == 0);
  CHECK_FALSE(p.memory.fits);
}

TEST_CASE("the layout round-trips through job_spec_to_yaml", "[llm][validation]") {
  const std::string text = llm_job("llama3-70b", 64, "parallelism: {tensor: 4, pipeline: 4, virtual_pipeline: 5, data: 4}\n"
                                   "sequence_parallel: true\nsharding: zero1\nactivation_checkpointing: selective\n",
                                   "fp8", "h100-sxm5-80gb", 8192, 256);
  const auto j = parse_job_spec(YamlReader::load_string(text, "job.yaml"));
  const auto again = parse_job_spec(YamlReader::load_string(job_spec_to_yaml(j), "again.yaml"));
  CHECK(again.parallelism.tensor == 4);
  CHECK(again.parallelism.virtual_pipeline == 5);
  CHECK(again.parallelism.data == 4);
  CHECK(again.parallelism.sequence_parallel);
  CHECK(again.sharding == Sharding::zero1);
  CHECK(again.activation_checkpointing == Recompute::selective);
  REQUIRE(again.global_batch_size);
  CHECK(*again.global_batch_size == 256);
}

// Issue 30, item 2c: TP wider than a node is legal but almost always a mistake; say so.
TEST_CASE("tensor parallel spanning nodes is warned about", "[llm][validation][issue30]") {
  auto warned = [](const Prediction& p) {
    for (const auto& w : p.warnings)
      if (w.find("tensor parallel") != std::string::npos && w.find("spans nodes") != std::string::npos) return true;
    return false;
  };
  CHECK(warned(ptp::test::predict(llm_job("llama3-8b", 16, "parallelism: {tensor: 16}\n"))));
  CHECK(warned(ptp::test::predict(llm_job("llama3-8b", 16, "parallelism: {tensor: 4}\n")) ) == false);
  CHECK(warned(ptp::test::predict(llm_job("llama3-8b", 16, "parallelism: {tensor: 8}\n"))) == false);
}
