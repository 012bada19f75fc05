#include <catch2/catch.hpp>

#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "ptp/vocab/error.hpp"
#include "support/run_command.hpp"

using namespace ptp;

namespace {
const char* kValid = R"(model: bert-large
precision: amp_fp16
batch_size: 32
seq_len: 512
cluster:
  gpu: a100-sxm4-80gb
  num_gpus: 16
run:
  epochs: 2
  dataset_size: 1000
cost:
  usd_per_gpu_hour: 2.5
)";

JobSpec parse(const std::string& text) { return parse_job_spec(YamlReader::load_string(text, "job.yaml")); }

std::string error_of(const std::string& text) {
  try {
    const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
    resolve_job(parse(text), catalogs);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto pos = s.find(from);
  REQUIRE(pos != std::string::npos);
  return s.replace(pos, from.size(), to);
}
}  // namespace

TEST_CASE("a valid job spec parses with defaults", "[job_spec]") {
  const auto j = parse(kValid);
  CHECK(j.model == "bert-large");
  CHECK(j.precision == "amp_fp16");
  CHECK(j.framework == "pytorch");
  CHECK(j.grad_accum == 1);
  CHECK(j.optimizer == "adamw");
  CHECK(j.cluster.num_gpus == 16);
  CHECK(*j.run.epochs == 2);
  CHECK(*j.usd_per_gpu_hour == 2.5);
}

TEST_CASE("spec errors name the field and what was expected", "[job_spec]") {
  CHECK_THAT(error_of(replace(kValid, "precision: amp_fp16", "precision: amp_fp61")),
             Catch::Contains("precision") && Catch::Contains("amp_fp16") && Catch::Contains("job.yaml:2"));
  CHECK_THAT(error_of(replace(kValid, "batch_size: 32", "batch_size: -4")),
             Catch::Contains("batch_size") && Catch::Contains("out of range"));
  CHECK_THAT(error_of(replace(kValid, "batch_size: 32", "batch_size: lots")),
             Catch::Contains("batch_size") && Catch::Contains("integer"));
  CHECK_THAT(error_of(replace(kValid, "batch_size: 32", "batch_size: 32\nbatch_tokens: 4096")),
             Catch::Contains("exactly one of batch_size and batch_tokens"));
  CHECK_THAT(error_of(replace(kValid, "batch_size: 32\n", "")), Catch::Contains("missing batch_size"));
  CHECK_THAT(error_of(replace(kValid, "seq_len: 512\n", "")), Catch::Contains("seq_len") && Catch::Contains("required"));
  CHECK_THAT(error_of(replace(kValid, "model: bert-large", "model: bert-lrage")),
             Catch::Contains("unknown model") && Catch::Contains("bert-large"));
  CHECK_THAT(error_of(replace(kValid, "gpu: a100-sxm4-80gb", "gpu: a100-sxm4-81gb")),
             Catch::Contains("cluster.gpu") && Catch::Contains("a100-sxm4-80gb"));
  CHECK_THAT(error_of(replace(kValid, "batch_size: 32", "batch_sise: 32")),
             Catch::Contains("unknown key") && Catch::Contains("batch_size"));
  CHECK_THAT(error_of(replace(kValid, "num_gpus: 16", "num_gpus: 0")), Catch::Contains("cluster.num_gpus"));
  CHECK_THAT(error_of(replace(kValid, "num_gpus: 16", "num_gpus: 12\n  gpus_per_node: 8")),
             Catch::Contains("multiple of gpus_per_node"));
  CHECK_THAT(error_of(replace(kValid, "epochs: 2", "epochs: .nan")), Catch::Contains("run.epochs"));
  CHECK_THAT(error_of(replace(kValid, "  epochs: 2\n", "  steps: 5\n  epochs: 2\n")),
             Catch::Contains("exactly one of steps"));
}

TEST_CASE("a precision the GPU cannot run is refused", "[job_spec]") {
  CHECK_THAT(error_of(replace(replace(kValid, "a100-sxm4-80gb", "v100-sxm2-16gb"), "amp_fp16", "bf16")),
             Catch::Contains("bf16 needs sm_80"));
  CHECK_THAT(error_of(replace(kValid, "amp_fp16", "fp8")), Catch::Contains("fp8 needs sm_89"));
  CHECK_THAT(error_of(replace(replace(kValid, "a100-sxm4-80gb", "t4"), "amp_fp16", "tf32")),
             Catch::Contains("tf32 needs sm_80"));
  CHECK(error_of(replace(replace(kValid, "a100-sxm4-80gb", "h100-sxm5-80gb"), "amp_fp16", "fp8")).empty());
}

TEST_CASE("YAML syntax errors carry line and column", "[job_spec]") {
  try {
    parse("model: bert\nprecision: [fp16\n");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("job.yaml:") && Catch::Contains("YAML syntax error"));
  }
}

TEST_CASE("set overrides are validated like the file", "[job_spec]") {
  auto doc = YamlReader::load_string(kValid, "job.yaml");
  YAML::Node root = YAML::Clone(doc.node());
  apply_override(root, parse_override("precision=bf16"));
  apply_override(root, parse_override("cluster.num_gpus=64"));
  const auto j = parse_job_spec(YamlReader(root, "job.yaml", ""));
  CHECK(j.precision == "bf16");
  CHECK(j.cluster.num_gpus == 64);
  CHECK_THROWS_AS(apply_override(root, parse_override("clustr.num_gpus=4")), InputError);
  CHECK_THROWS_AS(parse_override("precision"), InputError);
}

TEST_CASE("batch_tokens converts to sequences and global_batch_size derives grad_accum", "[job_spec]") {
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  auto j = parse(replace(kValid, "batch_size: 32", "batch_tokens: 8192"));
  auto r = resolve_job(j, catalogs);
  CHECK(r.job.batch_size == Approx(16));
  auto g = parse(replace(kValid, "batch_size: 32", "batch_size: 32\nglobal_batch_size: 2048"));
  r = resolve_job(g, catalogs);
  CHECK(r.job.grad_accum == 4);
  CHECK(r.samples_per_step == 2048);
}

TEST_CASE("a job spec round-trips through YAML", "[job_spec]") {
  const auto j = parse(kValid);
  const auto again = parse(job_spec_to_yaml(j));
  CHECK(again.model == j.model);
  CHECK(again.precision == j.precision);
  CHECK(again.batch_size == j.batch_size);
  CHECK(again.cluster.gpu == j.cluster.gpu);
  CHECK(*again.usd_per_gpu_hour == *j.usd_per_gpu_hour);
}

TEST_CASE("memory_format defaults to the framework's layout and round-trips", "[job_spec]") {
  const auto j = parse(kValid);
  CHECK(j.memory_format.empty());
  CHECK(channels_first(j));  // PyTorch is channels-first unless told otherwise
  const auto tf = parse(replace(kValid, "precision: amp_fp16", "precision: amp_fp16\nframework: tensorflow"));
  CHECK_FALSE(channels_first(tf));
  const auto nhwc = parse(replace(kValid, "precision: amp_fp16", "precision: amp_fp16\nmemory_format: nhwc"));
  CHECK_FALSE(channels_first(nhwc));
  CHECK(parse(job_spec_to_yaml(nhwc)).memory_format == "nhwc");
  CHECK_THAT(error_of(replace(kValid, "precision: amp_fp16", "precision: amp_fp16\nmemory_format: channels_last")),
             Catch::Contains("memory_format") && Catch::Contains("nchw | nhwc") && Catch::Contains("job.yaml:3"));
}
