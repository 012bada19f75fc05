#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "ptp/vocab/error.hpp"
#include "support/run_command.hpp"

using namespace ptp::predict;

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
  CHECK(j.framework == Framework::pytorch);
  CHECK(j.grad_accum == 1);
  CHECK(j.optimizer == Optimizer::adamw);
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
  CHECK(!j.memory_format);
  CHECK(channels_first(j));  // PyTorch is channels-first unless told otherwise
  const auto tf = parse(replace(kValid, "precision: amp_fp16", "precision: amp_fp16\nframework: tensorflow"));
  CHECK_FALSE(channels_first(tf));
  const auto nhwc = parse(replace(kValid, "precision: amp_fp16", "precision: amp_fp16\nmemory_format: nhwc"));
  CHECK_FALSE(channels_first(nhwc));
  CHECK(parse(job_spec_to_yaml(nhwc)).memory_format == MemoryFormat::nhwc);
  CHECK_THAT(error_of(replace(kValid, "precision: amp_fp16", "precision: amp_fp16\nmemory_format: channels_last")),
             Catch::Contains("memory_format") && Catch::Contains("nchw | nhwc") && Catch::Contains("job.yaml:3"));
}

// Issue 30, item 1a: a model path in a job file is relative to the job file, not the working directory.
TEST_CASE("a relative model path resolves against the job file's folder", "[job_spec][issue30]") {
  namespace fs = std::filesystem;
  const fs::path dir = ptp::test::temp_dir();
  fs::create_directories(dir / "jobs" / "models");
  fs::copy_file(std::string(PTP_SOURCE_DIR) + "/configs/models/bert-large.yaml", dir / "jobs" / "models" / "bert-large.yaml");
  const std::string job = (dir / "jobs" / "job.yaml").string();
  std::ofstream(job) << replace(kValid, "model: bert-large", "model: models/bert-large.yaml");
  const auto j = load_job_spec(job);
  CHECK(j.model == (dir / "jobs" / "models" / "bert-large.yaml").string());
  const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  CHECK(resolve_job(j, catalogs).model->id == "bert-large");
  // A zoo id is not a path.
  CHECK(load_job_spec(job, {{"model", "bert-large"}}).model == "bert-large");
  // A path given with --set was typed relative to the working directory.
  CHECK(load_job_spec(job, {{"model", "models/bert-large.yaml"}}).model ==
        (fs::current_path() / "models" / "bert-large.yaml").string());
  // Not found: the error points at the field and says where it looked.
  std::ofstream(job) << replace(kValid, "model: bert-large", "model: ../missing/bert.yaml");
  try {
    resolve_job(load_job_spec(job), catalogs);
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains(job + ":1:8: model: ") &&
                             Catch::Contains((dir / "missing" / "bert.yaml").string()) &&
                             Catch::Contains("model file not found"));
  }
  fs::remove_all(dir);
}

// Issue 30, item 1b: checks made after parsing name the line:column of the field they blame.
TEST_CASE("cross-field errors name file:line:column of the field", "[job_spec][issue30]") {
  CHECK_THAT(error_of(replace(kValid, "gpu: a100-sxm4-80gb", "gpu: a100-sxm4-81gb")),
             Catch::StartsWith("job.yaml:6:8: cluster.gpu: unknown GPU 'a100-sxm4-81gb'"));
  CHECK_THAT(error_of(replace(kValid, "model: bert-large", "model: bert-lrage")),
             Catch::StartsWith("job.yaml:1:8: model: unknown model 'bert-lrage'"));
  CHECK_THAT(error_of(replace(kValid, "  num_gpus: 16", "  num_gpus: 16\n  inter_node: carrier-pigeon")),
             Catch::StartsWith("job.yaml:8:15: cluster.inter_node: unknown fabric 'carrier-pigeon'"));
  CHECK_THAT(error_of(kValid + std::string("parallelism:\n  tensor: 3\n")),
             Catch::StartsWith("job.yaml:13:1: parallelism: tensor x pipeline x context = 3 must divide num_gpus = 16"));
  CHECK_THAT(error_of(kValid + std::string("parallelism: {tensor: 2, data: 3}\n")),
             Catch::StartsWith("job.yaml:13:32: parallelism.data: is 3"));
  CHECK_THAT(error_of(replace(kValid, "seq_len: 512", "seq_len: 512\nglobal_batch_size: 100")),
             Catch::StartsWith("job.yaml:5:20: global_batch_size: must be a multiple"));
  CHECK_THAT(error_of(kValid + std::string("finetune: {method: lora, rank: 2048}\n")),
             Catch::StartsWith("job.yaml:13:32: finetune.rank: 2048 exceeds the smallest adapted projection"));
  // A value from --set has no place in the file.
  auto doc = YamlReader::load_string(kValid, "job.yaml");
  YAML::Node root = doc.node();
  apply_override(root, parse_override("cluster.gpu=a100-sxm4-81gb"));
  try {
    const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
    resolve_job(parse_job_spec(YamlReader(root, "job.yaml", "")), catalogs);
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("job.yaml: cluster.gpu: unknown GPU"));
  }
}

// Issue 30, item 1c: yaml-cpp keeps one of two equal keys; a repeated key must not pass silently.
TEST_CASE("a key given twice in a mapping is an error naming both places", "[job_spec][issue30]") {
  CHECK_THAT(error_of(replace(kValid, "batch_size: 32", "batch_size: 32\nbatch_size: 64")),
             Catch::StartsWith("job.yaml:4:1: batch_size: duplicate key (first given at line 3)"));
  CHECK_THAT(error_of(replace(kValid, "  num_gpus: 16", "  num_gpus: 16\n  gpu: h100-sxm5-80gb")),
             Catch::StartsWith("job.yaml:8:3: cluster.gpu: duplicate key (first given at line 6)"));
  CHECK_THAT(error_of(kValid + std::string("parallelism: {tensor: 2, tensor: 4}\n")),
             Catch::Contains("parallelism.tensor: duplicate key"));
  // The same reader loads GPU, fabric and model files.
  CHECK_THROWS_WITH(YamlReader::load_string("id: x\nparams:\n  layers: 2\n  layers: 3\n", "m.yaml"),
                    Catch::StartsWith("m.yaml:4:3: params.layers: duplicate key"));
  // Aliases reuse one mapping; that is not a repeat.
  CHECK_NOTHROW(YamlReader::load_string("a: &x {k: 1}\nb: *x\nc: [*x, *x]\n", "a.yaml"));
}

// Issue 30, item 1e: --unset removes a key before validation, with the --set error style.
TEST_CASE("unset removes a dotted key before validation", "[job_spec][issue30]") {
  const std::string lora = replace(kValid, "seq_len: 512", "seq_len: 512\nfinetune: {method: lora, rank: 16}");
  CHECK_THAT(error_of(replace(lora, "method: lora", "method: full")), Catch::Contains("finetune.rank: applies to"));
  auto spec = [&](const std::vector<Override>& ovs) {
    YAML::Node root = YamlReader::load_string(lora, "job.yaml").node();
    for (const auto& ov : ovs) apply_override(root, ov);
    return parse_job_spec(YamlReader(root, "job.yaml", ""));
  };
  const auto j = spec({parse_unset("finetune.rank"), parse_override("finetune.method=full")});
  CHECK(j.finetune.method == FinetuneMethod::full);
  CHECK(spec({parse_unset("cost")}).usd_per_gpu_hour == std::nullopt);
  CHECK_THROWS_WITH(spec({parse_unset("clustr")}), Catch::StartsWith("--unset 'clustr': unknown field 'clustr'") &&
                                                       Catch::Contains("did you mean: cluster"));
  CHECK_THROWS_WITH(spec({parse_unset("finetune.rnak")}), Catch::Contains("the job has no field 'finetune.rnak'"));
  CHECK_THROWS_WITH(spec({parse_unset("parallelism.tensor")}), Catch::Contains("the job has no mapping 'parallelism'"));
  CHECK_THROWS_AS(parse_unset("a=b"), InputError);
}
