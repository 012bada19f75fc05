// launch: {megatron_args | torchtitan_toml} in a job: the readers, the merge under the job's own
// fields, the model built from Megatron's sizes, and the round trip through --emit-job's text. The
// launch files under tests/data/launch/ are synthetic, written from the frameworks' public argument
// definitions (each says so in its header).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>

#include "ptp/predict/job_fields.hpp"
#include "ptp/predict/launch_import.hpp"
#include "ptp/predict/predictor.hpp"
#include "ptp/vocab/error.hpp"
#include "support/run_command.hpp"

using namespace ptp::predict;
using ptp::test::source_path;
using ptp::test::write_temp_file;

namespace {

const std::string kData = source_path("tests/data/launch/");

const Predictor& predictor() {
  static const Predictor p(source_path("configs"), "", false);
  return p;
}

std::map<std::string, std::string> values_of(const LaunchRead& r) {
  std::map<std::string, std::string> out;
  for (const auto& v : r.values) out[v.key] = v.text;
  return out;
}

// The model YAML's params, which is what the prediction reads (the id names the file).
std::string params_of(const LaunchRead& r) {
  YAML::Emitter e;
  e << YAML::Load(r.model_yaml)["params"];
  return e.c_str();
}

// A job file next to the launch files, so its relative launch: path resolves there.
JobSpec job_from(const std::string& text, const std::vector<Override>& overrides = {}) {
  const std::string path = kData + "job-under-test.yaml";
  YAML::Node root = YamlReader::load_string(text, path).node();
  for (const auto& ov : overrides) apply_override(root, ov);
  return parse_job_spec(YamlReader(root, path, ""));
}

const char* kMegatronJob = R"(launch:
  megatron_args: llama3-8b-megatron.args
cluster:
  gpu: h100-sxm5-80gb
  num_gpus: 16
)";

std::string temp_args(const std::string& text) { return write_temp_file("launch.args", text); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

const char* kDims = "--num-layers 4 --hidden-size 512 --num-attention-heads 8 --vocab-size 32000 ";

}  // namespace

TEST_CASE("launch: each pasted form of one Megatron argument list imports the same fields", "[launch]") {
  const LaunchRead list = read_megatron_args(kData + "llama3-8b-megatron.args");
  REQUIRE(!list.model_yaml.empty());
  for (const char* form : {"llama3-8b.sh", "llama3-8b-arrays.sh", "exports.env"}) {
    INFO(form);
    const LaunchRead r = read_megatron_args(kData + form);
    CHECK(values_of(r) == values_of(list));
    CHECK(params_of(r) == params_of(list));
    REQUIRE(r.warnings.size() == 1);
    CHECK_THAT(r.warnings.front(),
               Catch::Contains("1 argument not read") && Catch::Contains("--no-masked-softmax-fusion"));
  }
  const auto v = values_of(list);
  CHECK(v.at("precision") == "bf16");
  CHECK(v.at("memory.convention") == "megatron");
  CHECK(v.at("parallelism.tensor") == "2");
  CHECK(v.at("parallelism.context") == "2");
  CHECK(v.at("sequence_parallel") == "true");
  CHECK(v.at("sharding") == "zero1");
  CHECK(v.at("overlap.grad_reduce") == "true");
  CHECK(v.at("overlap.param_gather") == "true");
  CHECK(v.at("overlap.tp_comm") == "false");  // left out: Megatron's default
  CHECK(v.at("batch_size") == "1");
  CHECK(v.at("global_batch_size") == "128");
  CHECK(v.at("seq_len") == "8192");
  CHECK(v.at("run.steps") == "1000");
  CHECK(v.at("memory.cross_entropy") == "fused");
  CHECK(v.at("optimizer") == "adamw");
}

TEST_CASE("launch: the model built from Megatron's sizes predicts as the zoo model with those sizes", "[launch]") {
  const JobSpec from_args = job_from(kMegatronJob);
  REQUIRE(launch_defines_model(from_args));
  CHECK(from_args.model == "megatron-args:llama3-8b-megatron.args");
  const JobSpec from_zoo = job_from(kMegatronJob, {{"model", "llama3-8b"}});
  REQUIRE(!launch_defines_model(from_zoo));
  const auto& catalogs = predictor().catalogs();
  const ResolvedJob a = resolve_job(from_args, catalogs), b = resolve_job(from_zoo, catalogs);
  CHECK(a.workload.params() == b.workload.params());
  CHECK(std::fabs(a.workload.params() / 1e6 - 8030) < 5);  // Llama 3 8B: 8.03B parameters
  const Prediction pa = predictor().predict(from_args), pb = predictor().predict(from_zoo);
  CHECK(std::fabs(pa.iteration_s / pb.iteration_s - 1) < 1e-9);
  CHECK(std::fabs(pa.memory.per_gpu_bytes / pb.memory.per_gpu_bytes - 1) < 1e-9);
  // The zoo model has the sizes the flags give, so naming it warns of nothing but the flag not read.
  CHECK(job_warnings(from_zoo, catalogs).size() == 1);
  // And the sizes are predicted as that zoo entry, by its id (which the learned levels know models by).
  CHECK(pa.model == "llama3-8b");
  const auto warnings = job_warnings(from_args, catalogs);
  CHECK(std::any_of(warnings.begin(), warnings.end(),
                    [](const std::string& w) { return w.find("the zoo's 'llama3-8b' in full") != std::string::npos; }));
}

TEST_CASE("launch: sizes that differ from every zoo model in one parameter stay the launch file's model", "[launch]") {
  const auto& catalogs = predictor().catalogs();
  for (const std::string changed : {"--num-layers 31", "--ffn-hidden-size 14080", "--num-query-groups 4",
                                     "--normalization LayerNorm"}) {
    INFO(changed);
    std::ifstream in(kData + "llama3-8b-megatron.args");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto space = changed.find(' ');
    const std::string flag = changed.substr(0, space), value = changed.substr(space + 1);
    const auto at = text.find(flag + "\n");
    REQUIRE(at != std::string::npos);
    const auto value_at = at + flag.size() + 1, value_end = text.find('\n', value_at);
    text.replace(value_at, value_end - value_at, value);
    const std::string args = write_temp_file("changed.args", text);
    const std::string job = write_temp_file("changed.yaml", "launch: {megatron_args: " + args +
                                                               "}\nprecision: bf16\ncluster: {gpu: h100-sxm5-80gb, num_gpus: 16}\n");
    const JobSpec spec = load_job_spec(job);
    REQUIRE(launch_defines_model(spec));
    CHECK(predictor().predict(spec).model == "megatron-args:changed.args");
    for (const auto& w : job_warnings(spec, catalogs)) CHECK(w.find("the zoo's") == std::string::npos);
  }
}

TEST_CASE("launch: the job's model: wins over the launch file's sizes, which are checked against it", "[launch]") {
  const JobSpec j = job_from(std::string(kMegatronJob) + "model: llama3-70b\n");
  CHECK(j.model == "llama3-70b");
  CHECK(!launch_defines_model(j));
  const std::string warnings = joined(job_warnings(j, predictor().catalogs()));
  CHECK_THAT(warnings, Catch::Contains("llama3-8b-megatron.args:4:1: --num-layers 32 contradicts the job's model "
                                       "'llama3-70b' (layers 80)"));
  CHECK_THAT(warnings, Catch::Contains("--hidden-size 4096 contradicts") && Catch::Contains("(hidden 8192)"));
  CHECK_THAT(warnings, Catch::Contains("--ffn-hidden-size 14336 contradicts"));
  CHECK_THAT(warnings, !Catch::Contains("--vocab-size"));  // both 128256
}

TEST_CASE("launch: a field the job file gives wins, with a warning naming both; --set wins quietly", "[launch]") {
  const JobSpec j = job_from(std::string(kMegatronJob) + "parallelism:\n  tensor: 4\nrun:\n  tokens: 1e9\n");
  CHECK(j.parallelism.tensor == 4);
  CHECK(j.parallelism.context == 2);  // the rest still comes from the arguments
  CHECK(*j.run.tokens == 1e9);
  CHECK(!j.run.steps);
  const std::string warnings = joined(j.imported->warnings);
  CHECK_THAT(warnings, Catch::Contains("job-under-test.yaml:7:11: parallelism.tensor: the job's 4 wins over 2 from "
                                       "--tensor-model-parallel-size 2 (") &&
                           Catch::Contains("llama3-8b-megatron.args:39:1)"));  // the value, a line of its own
  CHECK_THAT(warnings, Catch::Contains("run.tokens: the job's run.tokens wins; --train-iters 1000 (") &&
                           Catch::Contains("is not used"));
  const JobSpec flagged = job_from(kMegatronJob, {{"parallelism.tensor", "8"}});
  CHECK(flagged.parallelism.tensor == 8);
  CHECK_THAT(joined(flagged.imported->warnings), !Catch::Contains("parallelism.tensor"));
}

TEST_CASE("launch: flags ptp does not read are listed in one warning", "[launch]") {
  const auto r = read_megatron_args(
      temp_args(std::string(kDims) + "--micro-batch-size 1 --foo-bar 3 --baz --qux a b --lr 1e-4 --data-path 0.5 x\n"));
  std::size_t listing = 0;
  for (const auto& w : r.warnings)
    if (w.find("not read") != std::string::npos) {
      ++listing;
      CHECK_THAT(w, Catch::Contains("3 arguments not read") && Catch::Contains("--foo-bar, --baz, --qux"));
    }
  CHECK(listing == 1);  // --lr and --data-path set nothing the step depends on: not listed
}

TEST_CASE("launch: flags that contradict each other are one InputError at file:line:col", "[launch]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--bf16\n--fp16\n", ":2:1: --fp16: contradicts --bf16 (line 1): Megatron trains in one 16-bit type"},
      {"--fp8-format hybrid --fp4-format e2m1\n", ":1:21: --fp4-format: contradicts --fp8-format (line 1)"},
      {"--num-layers-per-virtual-pipeline-stage 2\n--num-virtual-stages-per-pipeline-rank 2\n",
       ":2:1: --num-virtual-stages-per-pipeline-rank: contradicts --num-layers-per-virtual-pipeline-stage"},
      {"--train-iters 10 --train-samples 100\n", ":1:18: --train-samples: contradicts --train-iters"},
      {"--recompute-granularity selective --recompute-method block\n",
       ":1:35: --recompute-method: contradicts --recompute-granularity"},
      {"--overlap-param-gather --use-distributed-optimizer\n",
       ":1:1: --overlap-param-gather: needs --overlap-grad-reduce"},
      {"--tensor-model-parallel-size 2 --tp-comm-overlap\n", ":1:32: --tp-comm-overlap: needs --sequence-parallel"},
      {"--use-flash-attn --attention-backend fused\n", ":1:18: --attention-backend: contradicts --use-flash-attn"},
      {"--bf16=yes\n", ":1:1: --bf16: takes no value"},
      {"--seq-length\n", ":1:1: --seq-length: expects a value"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    const std::string path = temp_args(text);
    CHECK_THAT(error_of([&] { read_megatron_args(path); }), Catch::Contains(path + message));
  }
  // --fp8-format without --bf16 is what Megatron runs: FP8 GEMMs.
  CHECK(values_of(read_megatron_args(temp_args("--fp8-format hybrid\n"))).at("precision") == "fp8");
}

TEST_CASE("launch: imported values get the job field's checks and name the launch file's line", "[launch]") {
  const std::string args =
      temp_args(std::string(kDims) + "--micro-batch-size 1 --seq-length 128\n--tensor-model-parallel-size 0\n");
  const std::string job = "launch:\n  megatron_args: " + args + "\ncluster:\n  gpu: h100-sxm5-80gb\n";
  CHECK_THAT(
      error_of([&] { job_from(job); }),
      Catch::Contains(
          "job-under-test.yaml:2:18: launch.megatron_args: " + args +
          ":2:30: --tensor-model-parallel-size 0 (parallelism.tensor): value 0 out of range, expected 1 .. 1024"));
  const std::string optimizer = temp_args(std::string(kDims) + "--optimizer muon\n");
  CHECK_THAT(
      error_of([&] { job_from("launch:\n  megatron_args: " + optimizer + "\ncluster:\n  gpu: h100-sxm5-80gb\n"); }),
      Catch::Contains(optimizer + ":1:89: --optimizer muon (optimizer): unknown value 'muon'"));
  const std::string unset = temp_args(std::string(kDims) + "--tensor-model-parallel-size $TP\n");
  CHECK_THAT(error_of([&] { read_megatron_args(unset); }),
             Catch::Contains(unset + ":1:106: --tensor-model-parallel-size: value '$TP' uses a variable"));
  CHECK_THAT(error_of([&] { job_from("launch:\n  megatron_args: nowhere.args\ncluster:\n  gpu: h100-sxm5-80gb\n"); }),
             Catch::Contains("job-under-test.yaml:2:18: launch.megatron_args: launch file not found: " + kData +
                             "nowhere.args"));
}

TEST_CASE("launch: a Megatron flag left out means Megatron's default", "[launch]") {
  const auto v = values_of(read_megatron_args(temp_args(kDims)));
  CHECK(v.at("precision") == "fp32");
  CHECK(v.at("sharding") == "none");
  CHECK(v.at("activation_checkpointing") == "none");
  CHECK(v.at("sequence_parallel") == "false");
  for (const char* overlap :
       {"overlap.grad_reduce", "overlap.param_gather", "overlap.tp_comm", "overlap.p2p", "overlap.a2a"})
    CHECK(v.at(overlap) == "false");
  CHECK(v.at("cuda_graphs") == "false");
  CHECK(v.at("memory.cross_entropy") == "unfused");
  CHECK(v.at("optimizer") == "adamw");
  CHECK(v.count("attention_kernel") == 0);  // auto: the convention's
  CHECK(v.count("batch_size") == 0);        // the job must give it
}

TEST_CASE("launch: Megatron's derived sizes: virtual stages, padded vocabulary, GQA, default FFN, experts",
          "[launch]") {
  const auto r = read_megatron_args(temp_args(
      "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --swiglu --vocab-size 128256\n"
      "--group-query-attention --num-query-groups 8 --tensor-model-parallel-size 8 --sequence-parallel\n"
      "--pipeline-model-parallel-size 4 --num-layers-per-virtual-pipeline-stage 2 --recompute-activations\n"
      "--num-experts 8 --moe-router-topk 2 --moe-ffn-hidden-size 2048 --fp8-format hybrid --fp8-recipe mxfp8\n"
      "--cuda-graph-impl transformer_engine --attention-backend fused --optimizer sgd\n"));
  const auto v = values_of(r);
  CHECK(v.at("parallelism.virtual_pipeline") == "4");  // 32 layers / 4 stages / 2 per virtual stage
  CHECK(v.at("overlap.p2p") == "true");                // Megatron overlaps sends when interleaving
  CHECK(v.at("activation_checkpointing") == "selective");
  CHECK(v.at("fp8_recipe") == "tensorwise");
  CHECK(v.at("cuda_graphs") == "true");
  CHECK(v.at("attention_kernel") == "cudnn");
  CHECK(v.at("optimizer") == "momentum");
  const YAML::Node p = YAML::Load(r.model_yaml)["params"];
  CHECK(p["vocab"].as<int>() == 129024);  // padded to a multiple of 128 x TP 8
  CHECK(p["kv_heads"].as<int>() == 8);
  CHECK(p["ffn"].as<int>() == 10880);  // 8/3 x 4096 down to a multiple of 64
  CHECK(p["num_experts"].as<int>() == 8);
  CHECK(p["experts_per_token"].as<int>() == 2);
  CHECK(p["expert_ffn"].as<int>() == 2048);
  CHECK(p["norm"].as<std::string>() == "layernorm");
  CHECK(p["positions"].as<std::string>() == "learned");
  CHECK(p["tie_embeddings"].as<bool>());
  CHECK(p["dropout"].as<bool>());  // Megatron's dropouts default to 0.1
  const auto missing = read_megatron_args(temp_args("--num-layers 4 --hidden-size 512\n"));
  CHECK(missing.model_yaml.empty());
  CHECK(missing.model_missing == "no --num-attention-heads, --vocab-size or --padded-vocab-size");
  CHECK_THAT(
      error_of([&] {
        job_from("launch:\n  megatron_args: " + temp_args("--num-layers 4\n") + "\ncluster:\n  gpu: h100-sxm5-80gb\n");
      }),
      Catch::Contains("model: missing required field, and") &&
          Catch::Contains("does not define the model (no --hidden-size"));
}

TEST_CASE("launch: the shell forms: quotes, continuations, arrays, defaults, redirections, unset variables",
          "[launch]") {
  const auto r =
      read_megatron_args(temp_args("export TP=4   # tensor parallel\n"
                                   "ARGS=( --num-layers 4 '--hidden-size' \"512\" )\n"
                                   "ARGS+=(--num-attention-heads 8)\n"
                                   "python -u pretrain_gpt.py \"${ARGS[@]}\" --vocab-size=32000 \\\n"
                                   "  --tensor-model-parallel-size ${TP} --micro-batch-size ${MBS:-2} $EXTRA_ARGS \\\n"
                                   "  --seq-length 128 --log-interval $(( 2 * 5 )) > train.log 2>&1; echo done\n"));
  const auto v = values_of(r);
  CHECK(v.at("parallelism.tensor") == "4");
  CHECK(v.at("batch_size") == "2");
  CHECK(!r.model_yaml.empty());
  CHECK_THAT(joined(r.warnings),
             Catch::Contains("not set in the file, so the flags they hold are not read: $EXTRA_ARGS"));
  CHECK_THAT(error_of([&] { read_megatron_args(temp_args("X=$(( 1 + 1 ))\npretrain_gpt.py --seq-length $X\n")); }),
             Catch::Contains("--seq-length: value '$(( 1 + 1 ))' uses a variable or command"));
  CHECK_THAT(error_of([&] { read_megatron_args(temp_args("pretrain_gpt.py --bf16 \"unterminated\n")); }),
             Catch::Contains(":1:24: unterminated \" quote"));
  CHECK_THAT(error_of([&] {
               read_megatron_args(
                   temp_args("A=x\nA=\"$A$A\"\nA=\"$A$A\"\nA=\"$A$A$A$A$A$A$A$A\"\nA=\"$A$A$A$A$A$A$A$A\"\n"
                             "A=\"$A$A$A$A$A$A$A$A\"\nA=\"$A$A$A$A$A$A$A$A\"\nA=\"$A$A$A$A$A$A$A$A\"\n"
                             "A=\"$A$A$A$A$A$A$A$A\"\nA=\"$A$A$A$A$A$A$A$A\"\nA=\"$A$A$A$A$A$A$A$A\"\n"));
             }),
             Catch::Contains("variables expand to more than 16 MiB"));
}

TEST_CASE("launch: a torchtitan config maps its keys, and its flavor to the zoo model", "[launch]") {
  const LaunchRead r = read_torchtitan_toml(kData + "llama3_8b.toml");
  const auto v = values_of(r);
  const std::map<std::string, std::string> expected = {
      {"model", "llama3-8b"},
      {"precision", "fp8"},
      {"fp8_recipe", "rowwise"},
      {"batch_size", "2"},
      {"seq_len", "8192"},
      {"run.steps", "1000"},
      {"parallelism.tensor", "2"},
      {"parallelism.pipeline", "1"},
      {"sharding", "fsdp"},
      {"sequence_parallel", "true"},
      {"overlap.tp_comm", "true"},
      {"compile", "true"},
      {"activation_checkpointing", "selective"},
      {"memory.convention", "fsdp"},
      {"memory.cross_entropy", "loss_parallel"},
      {"low_precision.bf16_modules", "lm_head"},
      {"codebase", "torchtitan"},
      {"optimizer", "adamw"},
      {"fused_optimizer", "true"},
  };
  for (const auto& [key, text] : expected) {
    INFO(key);
    REQUIRE(v.count(key) == 1);
    CHECK(v.at(key) == text);
  }
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings.front(),
             Catch::Contains("1 key not read") && Catch::Contains("parallelism.fsdp_reshard_after_forward"));
  const JobSpec j =
      job_from("launch:\n  torchtitan_toml: llama3_8b.toml\ncluster:\n  gpu: h100-sxm5-80gb\n  num_gpus: 16\n");
  CHECK(j.model == "llama3-8b");
  CHECK(predictor().predict(j).iteration_s > 0);
}

TEST_CASE("launch: torchtitan defaults, pipeline micro-batches, and a flavor the zoo lacks", "[launch]") {
  const auto toml = [](const std::string& text) { return write_temp_file("job.toml", text); };
  const auto defaults = values_of(read_torchtitan_toml(toml("[model]\nname = \"llama3\"\nflavor = \"70B\"\n")));
  CHECK(defaults.at("model") == "llama3-70b");
  CHECK(defaults.at("batch_size") == "8");
  CHECK(defaults.at("seq_len") == "2048");
  CHECK(defaults.at("run.steps") == "10000");
  CHECK(defaults.at("precision") == "bf16");
  CHECK(defaults.at("activation_checkpointing") == "selective");
  const auto pipelined = values_of(read_torchtitan_toml(toml(
      "[training]\nlocal_batch_size = 8\n[parallelism]\npipeline_parallel_degree = "
      "4\npipeline_parallel_microbatch_size = 2\n"
      "data_parallel_shard_degree = 1\n[activation_checkpoint]\nmode = \"selective\"\nselective_ac_option = \"1\"\n")));
  CHECK(pipelined.at("batch_size") == "2");
  CHECK(pipelined.at("grad_accum") == "4");
  CHECK(pipelined.at("sharding") == "none");
  CHECK(pipelined.at("activation_checkpointing") == "full");
  const std::string debug = toml("[model]\nname = \"llama3\"\nflavor = \"debugmodel\"\n");
  CHECK_THAT(
      error_of([&] { job_from("launch:\n  torchtitan_toml: " + debug + "\ncluster:\n  gpu: h100-sxm5-80gb\n"); }),
      Catch::Contains("does not define the model ([model] name 'llama3' flavor 'debugmodel' has no model zoo id"));
  const JobSpec named =
      job_from("launch:\n  torchtitan_toml: " + debug + "\nmodel: llama3-8b\ncluster:\n  gpu: h100-sxm5-80gb\n");
  CHECK(named.model == "llama3-8b");
  const std::string bad = toml("[parallelism]\ntensor_parallel_degree = [2]\n");
  CHECK_THAT(error_of([&] { read_torchtitan_toml(bad); }),
             Catch::Contains(bad + ":2:26: [parallelism] tensor_parallel_degree: expected an integer, got an array"));
  const std::string syntax = toml("[training\nseq_len = 1\n");
  CHECK_THAT(error_of([&] { read_torchtitan_toml(syntax); }),
             Catch::Contains(syntax + ":1:") && Catch::Contains("TOML syntax error"));
  for (const char* flavor : {"70B", "405B"}) {
    const auto v =
        values_of(read_torchtitan_toml(toml(std::string("[model]\nname = \"llama3\"\nflavor = \"") + flavor + "\"\n")));
    CHECK_NOTHROW(predictor().catalogs().model(v.at("model")));
  }
}

TEST_CASE("launch: the emitted job keeps launch: and every field the file gave, and predicts the same", "[launch]") {
  const std::string job = kData + "llama3-8b-megatron.yaml";
  const std::string text = merged_job_yaml(job, {{"parallelism.tensor", "1"}});
  CHECK_THAT(text, Catch::Contains("megatron_args: " + kData + "llama3-8b-megatron.args"));
  CHECK_THAT(text, !Catch::Contains("\nmodel:"));       // the launch file defines it
  CHECK_THAT(text, Catch::Contains("tp_comm: false"));  // given by the file (as absent), written though a default
  const JobSpec again = parse_job_spec(YamlReader::load_string(text, write_temp_file("emitted.yaml", text)));
  const JobSpec original = load_job_spec(job, {{"parallelism.tensor", "1"}});
  CHECK(again.parallelism.tensor == 1);
  CHECK(again.model == original.model);
  CHECK(predictor().predict(again).iteration_s == predictor().predict(original).iteration_s);
}

TEST_CASE("launch: the readers read at least 25 real flags and keys, each in docs/launch-import.md", "[launch]") {
  const auto flags = megatron_flags_read(), keys = torchtitan_keys_read();
  CHECK(flags.size() + keys.size() >= 25);
  std::ifstream in(source_path("docs/launch-import.md"));
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& f : flags) {
    INFO(f);
    CHECK_THAT(doc, Catch::Contains("`" + f + "`"));
  }
  for (const auto& k : keys) {
    INFO(k);
    const auto dot = k.rfind('.');
    CHECK_THAT(doc, Catch::Contains("`[" + k.substr(0, dot) + "] " + k.substr(dot + 1) + "`"));
  }
  CHECK(find_job_field("launch.megatron_args") != nullptr);
  CHECK(find_job_field("launch.torchtitan_toml") != nullptr);
}
