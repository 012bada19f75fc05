// The job-field table against the parser it drives: every row is read, --set, written back and read
// again as the same value; the documented defaults are what a job that leaves a field out gets.
#include <catch2/catch.hpp>

#include <map>

#include "ptp/predict/job_fields.hpp"
#include "ptp/vocab/error.hpp"

using namespace ptp::predict;

namespace {

// A QLoRA job, so that every finetune key may be given.
const char* kBase = R"(model: llama3-8b
precision: bf16
batch_size: 1
seq_len: 4096
cluster:
  gpu: h100-sxm5-80gb
  num_gpus: 8
finetune:
  method: qlora
  rank: 16
run:
  steps: 10
)";

JobSpec parse_with(const std::vector<Override>& overrides) {
  YAML::Node root = YamlReader::load_string(kBase, "job.yaml").node();
  for (const auto& ov : overrides) apply_override(root, ov);
  return parse_job_spec(YamlReader(root, "job.yaml", ""));
}

// Valid values of the field, in the order tried.
std::vector<FieldValue> candidates(const JobField& f) {
  std::vector<FieldValue> out;
  switch (f.type) {
    case FieldType::text:
      // A launch file must exist: the synthetic ones the launch tests read.
      if (f.section() == "launch") {
        const bool megatron = f.key == "launch.megatron_args";
        out.emplace_back(std::string(PTP_SOURCE_DIR) + "/tests/data/launch/" +
                         (megatron ? "llama3-8b-megatron.args" : "llama3_8b.toml"));
        break;
      }
      out.emplace_back(std::string("llama3-70b"));
      out.emplace_back(std::string("gpt2-xl"));
      break;
    case FieldType::integer:
      out.emplace_back(static_cast<long long>(f.min));
      out.emplace_back(static_cast<long long>(f.min) + 1);
      break;
    case FieldType::number:
      out.emplace_back(f.min);
      out.emplace_back((f.min + f.max) / 2);
      break;
    case FieldType::flag:
      out.emplace_back(true);
      out.emplace_back(false);
      break;
    case FieldType::choice:
      for (const auto& c : f.choices) out.emplace_back(c);
      break;
    case FieldType::choice_list:
      for (const auto& c : f.choices) out.emplace_back(std::vector<std::string>{c});
      break;
    case FieldType::section:
      break;
  }
  return out;
}

// A valid value of the field that differs from the base job's.
FieldValue other_value(const JobField& f, const FieldValue& now) {
  for (const auto& v : candidates(f))
    if (!(v == now)) return v;
  FAIL("no other value for " << f.key);
  return {};
}

// What a field needs beside it to be valid (rules between fields).
std::vector<Override> prerequisites(const std::string& key) {
  static const std::map<std::string, std::vector<Override>> needs = {
      {"batch_tokens", {parse_unset("batch_size")}},
      {"run.epochs", {parse_unset("run.steps"), {"run.dataset_size", "100"}}},
      {"run.dataset_size", {parse_unset("run.steps"), {"run.epochs", "1"}}},
      {"run.tokens", {parse_unset("run.steps")}},
      {"attention_mask", {{"packing", "true"}, {"avg_seq_len", "1000"}}},
      {"finetune.method", {parse_unset("finetune.rank")}},
      {"run.eval.every_steps", {{"run.eval.seconds", "30"}}},
      {"run.eval.seconds", {{"run.eval.every_steps", "100"}}},
      {"run.checkpoint.every_steps", {{"run.checkpoint.seconds", "30"}}},
      {"run.checkpoint.seconds", {{"run.checkpoint.every_steps", "100"}}},
  };
  const auto it = needs.find(key);
  return it == needs.end() ? std::vector<Override>{} : it->second;
}

}  // namespace

TEST_CASE("every field of the table is read, set, written back and read again", "[job_fields]") {
  const JobSpec base = parse_with({});
  int walked = 0;
  for (const auto& f : job_fields()) {
    if (f.type == FieldType::section) continue;
    INFO(f.key);
    const FieldValue value = other_value(f, f.get(base));
    auto overrides = prerequisites(f.key);
    overrides.emplace_back(f.key, field_text(value));
    const JobSpec set = parse_with(overrides);
    CHECK(f.get(set) == value);
    const std::string yaml = job_spec_to_yaml(set);
    const JobSpec again = parse_job_spec(YamlReader::load_string(yaml, "again.yaml"));
    CHECK(f.get(again) == value);
    CHECK(job_spec_to_yaml(again) == yaml);
    ++walked;
  }
  CHECK(walked > 60);
}

TEST_CASE("a field left out takes the default the reference documents", "[job_fields]") {
  const JobSpec minimal = parse_job_spec(YamlReader::load_string(
      "model: resnet50\nprecision: fp32\nbatch_size: 64\ncluster: {gpu: v100-sxm2-16gb}\n", "job.yaml"));
  static const JobSpec defaults{};
  for (const auto& f : job_fields()) {
    if (f.type == FieldType::section || f.required || !f.default_text.empty()) continue;
    INFO(f.key);
    CHECK(f.get(minimal) == f.get(defaults));
  }
}

TEST_CASE("every section refuses a key outside its rows, naming the nearest", "[job_fields]") {
  for (const std::string section : {"cluster", "run", "parallelism", "finetune", "memory", "energy", "low_precision"}) {
    INFO(section);
    const auto& keys = section_keys(section);
    REQUIRE_FALSE(keys.empty());
    const std::string typo = keys.front() + "x";
    try {
      parse_with({{section + "." + typo, "1"}});
      FAIL("accepted " << section << "." << typo);
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(section + "." + typo + ": unknown key") &&
                               Catch::Contains("did you mean: " + keys.front()));
    }
  }
  CHECK_THROWS_WITH(parse_with({{"batchsize", "1"}}), Catch::Contains("unknown field 'batchsize'"));
}

TEST_CASE("a section given as a scalar lists the keys it takes", "[job_fields]") {
  CHECK_THROWS_WITH(parse_with({{"parallelism", "4"}}),
                    Catch::Contains("parallelism: expected a mapping {tensor, pipeline, virtual_pipeline, context, "
                                    "expert, data}"));
}

TEST_CASE("search fields are the table's searchable rows in their column order", "[job_fields][search]") {
  std::vector<std::pair<int, std::string>> searchable;
  for (const auto& f : job_fields())
    if (f.searchable()) searchable.emplace_back(f.search_order, f.key);
  std::sort(searchable.begin(), searchable.end());
  for (std::size_t i = 1; i < searchable.size(); ++i) CHECK(searchable[i - 1].first != searchable[i].first);
  REQUIRE(searchable.size() >= 26);
  CHECK(searchable.front().second == "cluster.gpu");
  // The layout's columns, then the micro-batch, then the stack descriptors a space file may list.
  CHECK(searchable[19].second == "batch_tokens");
  CHECK(searchable[20].second == "overlap.tp_comm");
  CHECK(searchable.back().second == "cuda_graphs");
}

TEST_CASE("the reference names every field with its type, default and choices", "[job_fields]") {
  const std::string md = describe_job_spec_markdown();
  for (const auto& f : job_fields()) CHECK_THAT(md, Catch::Contains("| `" + f.key + "` |"));
  CHECK_THAT(md, Catch::Contains("| `optimizer` | one of `sgd`, `momentum`, `adam`, `adamw`, `lamb` | `adamw` | yes |"));
  CHECK_THAT(md, Catch::Contains("| `finetune.double_quant` | `true`, `false` | `false` |  | qlora: quantised "
                                 "quantisation constants; qlora only |"));
}
