// End-to-end: the real ptp-predict binary on the shipped example jobs and on bad input.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

using ptp::test::binary;
using ptp::test::run_command;
using ptp::test::source_path;

namespace {
std::string predict(const std::string& args) { return binary("ptp-predict") + " " + args; }
// The prediction JSON less the keys that say which file and flags produced it (`job`, `set`):
// an emitted job is another file with no flags, and must predict the rest byte for byte.
std::string without_provenance(const std::string& json_text) {
  auto j = nlohmann::json::parse(json_text);
  j.erase("job");
  j.erase("set");
  return j.dump(2);
}
std::vector<std::string> example_jobs() {
  std::vector<std::string> jobs;
  for (const auto& e : std::filesystem::directory_iterator(source_path("configs/jobs")))
    if (e.path().extension() == ".yaml") jobs.push_back(e.path().string());
  std::sort(jobs.begin(), jobs.end());
  return jobs;
}
}  // namespace

TEST_CASE("every shipped example job predicts in every format", "[cli]") {
  const auto jobs = example_jobs();
  REQUIRE(jobs.size() >= 3);
  for (const auto& job : jobs) {
    INFO(job);
    auto table = run_command(predict(job));
    CHECK(table.exit_code == 0);
    CHECK_THAT(table.out, Catch::Contains("iteration"));
    auto json = run_command(predict(job + " --format json"));
    REQUIRE(json.exit_code == 0);
    const auto j = nlohmann::json::parse(json.out);
    CHECK(j["iteration"]["seconds"].get<double>() > 0);
    auto csv = run_command(predict(job + " --format csv"));
    CHECK(csv.exit_code == 0);
    CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 2);
  }
  std::string all;
  for (const auto& job : jobs) all += " " + job;
  auto jsonl = run_command(predict(all + " --format jsonl"));
  CHECK(jsonl.exit_code == 0);
  CHECK(std::count(jsonl.out.begin(), jsonl.out.end(), '\n') == static_cast<long>(jobs.size()));
}

TEST_CASE("bad input: exit 2, one line on stderr, nothing on stdout", "[cli]") {
  const std::string job = source_path("configs/jobs/bert-large-amp-16xa100.yaml");
  for (const std::string& args :
       {std::string("/nonexistent.yaml"), job + " --set precision=fp9", job + " --set cluster.gpu=a100-sxm9",
        job + " --set batch_size=-1", job + " --format xml", job + " --sweep precision=", job + " --set nokey=1",
        job + " --set cluster.gpu=v100-sxm2-16gb --set precision=bf16"}) {
    INFO(args);
    auto r = run_command(predict(args));
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("budget flags give CI exit codes", "[cli]") {
  const std::string job = source_path("configs/jobs/bert-large-amp-16xa100.yaml");
  CHECK(run_command(predict(job + " --max-hours 1000")).exit_code == 0);
  auto over = run_command(predict(job + " --max-hours 0.001"));
  CHECK(over.exit_code == 3);
  CHECK_THAT(over.err, Catch::Contains("over budget"));
  CHECK(run_command(predict(job + " --max-cost 0.01")).exit_code == 3);
}

TEST_CASE("trace flag writes a Perfetto-loadable file", "[cli]") {
  const std::string out = ptp::test::temp_dir() + "/trace.json";
  auto r = run_command(predict(source_path("configs/jobs/bert-large-amp-16xa100.yaml") + " --trace " + out));
  REQUIRE(r.exit_code == 0);
  const auto trace = nlohmann::json::parse(ptp::test::slurp(out));
  CHECK(trace["traceEvents"].size() > 10);
}

TEST_CASE("every binary says its version and schemas; JSON carries them with the bundle's checksum", "[cli][version]") {
  for (const char* tool : {"ptp-predict", "ptp-train", "ptp-profile"}) {
    INFO(tool);
    const auto r = run_command(binary(tool) + " --version");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith(std::string(tool) + " 0.") && Catch::Contains("dataset schema 1"));
  }
  const auto r = run_command(binary("ptp-predict") + " " + source_path("configs/jobs/bert-large-amp-16xa100.yaml") + " --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["ptp"]["output_schema"] == 1);
  CHECK_THAT(r.out, Catch::Contains(j["ptp"]["version"].get<std::string>()));
  const std::string checksum = ptp::test::slurp(source_path("models/default/CHECKSUM"));
  CHECK(checksum.rfind(j["predictor"]["bundle_checksum"].get<std::string>(), 0) == 0);
  const auto table = run_command(binary("ptp-predict") + " " + source_path("configs/jobs/bert-large-amp-16xa100.yaml"));
  CHECK_THAT(table.out, Catch::Contains(checksum.substr(0, 12)));
}

// Issue 30, item 1d: CLI11's own range checks printed DBL_MAX in full and let nan through.
TEST_CASE("numeric flags are range-checked with a one-line error", "[cli][issue30]") {
  const std::string job = source_path("configs/jobs/bert-large-amp-16xa100.yaml");
  for (const char* flags : {"--max-hours -1", "--max-hours nan", "--max-hours inf", "--max-hours 1e300",
                            "--max-cost -5", "--max-cost nan", "--search --top -1", "--search --top 0",
                            "--search --threads 100000"}) {
    const std::string args = flags;
    INFO(args);
    auto r = run_command(predict(job + " " + args));
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.size() < 200);
    CHECK_THAT(r.err, Catch::Contains(args.substr(args.rfind("--"), args.rfind(' ') - args.rfind("--"))));
  }
  CHECK_THAT(run_command(predict(job + " --max-hours -1")).err, Catch::Contains("out of range, expected 0 .. 1e+09"));
  CHECK(run_command(predict(job + " --max-hours 1e6")).exit_code == 0);
}

// Issue 30, item 1e.
TEST_CASE("unset removes a job field before --set applies", "[cli][issue30]") {
  const std::string job = ptp::test::write_temp_file("lora.yaml", R"(model: llama3-8b
precision: bf16
batch_size: 1
seq_len: 4096
cluster: {gpu: h100-sxm5-80gb, num_gpus: 8}
finetune: {method: lora, rank: 16}
)");
  auto refused = run_command(predict(job + " --set finetune.method=full"));
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.err, Catch::Contains("finetune.rank: applies to method: lora or qlora only"));
  auto full = run_command(predict(job + " --set finetune.method=full --unset finetune.rank --format json"));
  REQUIRE(full.exit_code == 0);
  auto unknown = run_command(predict(job + " --unset finetun"));
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.out.empty());
  CHECK_THAT(unknown.err, Catch::Contains("--unset 'finetun': unknown field 'finetun' (did you mean: finetune"));
}

// Issue 30, item 1a, end to end: every sweep point (parsed from a clone of the file's tree) finds the
// model next to the job file, from any working directory.
TEST_CASE("a relative model path works from another directory and in every sweep point", "[cli][issue30]") {
  namespace fs = std::filesystem;
  const fs::path dir = ptp::test::temp_dir();
  fs::create_directories(dir / "models");
  fs::copy_file(source_path("configs/models/bert-large.yaml"), dir / "models" / "bert-large.yaml");
  std::ofstream(dir / "job.yaml") << "model: models/bert-large.yaml\nprecision: amp_fp16\nbatch_size: 32\n"
                                     "seq_len: 128\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n";
  const auto r = run_command("cd / && " + predict((dir / "job.yaml").string() +
                                                  " --sweep precision=fp32,amp_fp16,amp_bf16 --format csv"));
  CHECK(r.exit_code == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 4);
  CHECK(r.out.find("invalid") == std::string::npos);
  CHECK(r.out.find("not found") == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("ptp-predict --describe-job-spec prints docs/job-spec.md, and takes no job", "[cli][job_fields]") {
  const auto r = run_command(predict("--describe-job-spec"));
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  // Regenerate deliberately: ptp-predict --describe-job-spec > docs/job-spec.md
  CHECK(r.out == ptp::test::slurp(source_path("docs/job-spec.md")));
  const auto both = run_command(predict("--describe-job-spec " + source_path("configs/jobs/bert-large-amp-16xa100.yaml")));
  CHECK(both.exit_code == 2);
  CHECK(both.out.empty());
}

TEST_CASE("ptp-predict --emit-job writes the job as read, flags applied, and predicting it gives the same answer", "[cli][job_fields]") {
  for (const auto& job : example_jobs()) {
    INFO(job);
    const std::string flags = " --set overlap.grad_reduce=false --set cuda_graphs=true";
    const auto emitted = run_command(predict(job + flags + " --emit-job"));
    REQUIRE(emitted.exit_code == 0);
    CHECK_THAT(emitted.out, Catch::Contains("cuda_graphs: true") && Catch::Contains("grad_reduce: false"));
    const auto file = ptp::test::write_temp_file("emitted.yaml", emitted.out);
    const auto original = run_command(predict(job + flags + " --format json"));
    const auto again = run_command(predict(file + " --format json"));
    REQUIRE(original.exit_code == 0);
    CHECK(without_provenance(again.out) == without_provenance(original.out));
  }
  // A derived grad_accum is not written beside the global batch it comes from.
  const auto global = run_command(predict(source_path("configs/jobs/llama3-70b-fp8-256xh100.yaml") + " --emit-job"));
  CHECK_THAT(global.out, Catch::Contains("global_batch_size: 512") && !Catch::Contains("grad_accum:"));
  const auto bad = run_command(predict(source_path("configs/jobs/bert-large-amp-16xa100.yaml") +
                                       " --emit-job --set overlap.tp_comm=sometimes"));
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.empty());
  CHECK_THAT(bad.err, Catch::Contains("overlap.tp_comm: expected true or false"));
}

TEST_CASE("ptp-predict on a launch job: warnings on stderr, and its --emit-job predicts byte-identical JSON", "[cli][launch]") {
  for (const char* name : {"llama3-8b-megatron.yaml", "llama3-8b-torchtitan.yaml"}) {
    const std::string job = source_path("tests/data/launch/") + name;
    INFO(job);
    const auto original = run_command(predict(job + " --format json"));
    REQUIRE(original.exit_code == 0);
    REQUIRE(!original.err.empty());
    std::istringstream lines(original.err);
    for (std::string line; std::getline(lines, line);) CHECK_THAT(line, Catch::StartsWith("ptp-predict: warning: "));
    const auto emitted = run_command(predict(job + " --emit-job"));
    REQUIRE(emitted.exit_code == 0);
    CHECK_THAT(emitted.out, Catch::Contains("launch:\n  ") && Catch::Contains("# warning: "));
    // Written elsewhere: the emitted job names its launch file by an absolute path.
    const auto file = ptp::test::write_temp_file("emitted.yaml", emitted.out);
    const auto again = run_command(predict(file + " --format json"));
    REQUIRE(again.exit_code == 0);
    CHECK(without_provenance(again.out) == without_provenance(original.out));
  }
  const std::string megatron = source_path("tests/data/launch/llama3-8b-megatron.yaml");
  const auto sweep = run_command(predict(megatron + " --sweep parallelism.tensor=1,2 --format csv"));
  REQUIRE(sweep.exit_code == 0);
  CHECK(std::count(sweep.out.begin(), sweep.out.end(), '\n') == 3);
  // The job file's warnings (a flag not read; the sizes are the zoo's llama3-8b), once each, not per row.
  CHECK(std::count(sweep.err.begin(), sweep.err.end(), '\n') == 2);
  const auto contested = ptp::test::write_temp_file(
      "contested.yaml", "launch:\n  megatron_args: " + source_path("tests/data/launch/llama3-8b-megatron.args") +
                            "\nparallelism:\n  tensor: 4\ncluster:\n  gpu: h100-sxm5-80gb\n  num_gpus: 16\n");
  const auto warned = run_command(predict(contested + " --format json"));
  REQUIRE(warned.exit_code == 0);
  CHECK_THAT(warned.err, Catch::Contains("contested.yaml:4:11: parallelism.tensor: the job's 4 wins over 2 from "
                                         "--tensor-model-parallel-size 2 ("));
  CHECK(nlohmann::json::parse(warned.out)["parallelism"]["tensor"] == 4);
}

// Issue 54, item 3: what a job can name is listed, and an unknown id hears either the near entries or
// how to add it.
namespace {
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}
std::size_t yaml_files_in(const std::string& rel) {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(source_path(rel))) n += e.path().extension() == ".yaml";
  return n;
}
}  // namespace

TEST_CASE("ptp-predict --list prints every kind: one sorted line per entry and no job file", "[cli][list][issue54]") {
  const nlohmann::json manifest = nlohmann::json::parse(ptp::test::slurp(source_path("models/default/manifest.json")));
  struct Kind {
    std::string kind, entry;
    std::vector<std::string> facts;  // on the entry's line
    std::size_t count;
  };
  const std::vector<Kind> kinds{
      {"gpus", "h100-sxm5-80gb", {"80 GiB", "$12.29/GPU-h (AWS", "fp32 66.9", "bf16 989.4", "fp8 1978.9"}, yaml_files_in("configs/gpus")},
      {"models", "llama3-8b", {"8.03 B params", "transformer/decoder-only", "Llama 3 8B"}, yaml_files_in("configs/models")},
      {"fabrics", "ib-ndr-400", {"50 GB/s per GPU", "InfiniBand NDR"}, yaml_files_in("configs/fabrics")},
      {"codebases", "megatron-bridge", {"fp4", "fp8"}, manifest["codebase_offsets"].size()},
      {"precisions", "fp8", {"sm_89+", "FP8 GEMMs"}, 8}};
  for (const auto& k : kinds) {
    INFO(k.kind);
    const auto r = run_command(predict("--list " + k.kind));
    CHECK(r.exit_code == 0);
    const auto lines = lines_of(r.out);
    CHECK(lines.size() == k.count);
    std::vector<std::string> ids;
    for (const auto& line : lines) ids.push_back(line.substr(0, line.find(' ')));
    CHECK(std::is_sorted(ids.begin(), ids.end()));
    CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end());
    const auto it = std::find(ids.begin(), ids.end(), k.entry);
    REQUIRE(it != ids.end());
    const std::string& line = lines[static_cast<std::size_t>(it - ids.begin())];
    for (const auto& fact : k.facts) CHECK_THAT(line, Catch::Contains(fact));
  }
  // A GPU without a catalog price says so; codebases say that others are allowed (on stderr: stdout
  // stays one line per entry).
  CHECK_THAT(run_command(predict("--list gpus")).out, Catch::Contains("no catalog price"));
  const auto codebases = run_command(predict("--list codebases"));
  CHECK(std::count(codebases.err.begin(), codebases.err.end(), '\n') == 1);
  CHECK_THAT(codebases.err, Catch::Contains("any other codebase"));
}

TEST_CASE("ptp-predict --list with an unknown kind is exit 2 with one line naming the kinds", "[cli][list][issue54]") {
  for (const std::string kind : {"gpu", "nonsense", "''"}) {
    INFO(kind);
    const auto r = run_command(predict("--list " + kind));
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_THAT(r.err, Catch::Contains("gpus | models | fabrics | codebases | precisions"));
  }
  CHECK_THAT(run_command(predict("--list gpu")).err, Catch::Contains("(did you mean: gpus?)"));
  CHECK_THAT(run_command(predict("--list nonsense")).err, !Catch::Contains("did you mean"));
  // A job file and --list do not go together.
  CHECK(run_command(predict("--list gpus " + source_path("configs/jobs/bert-large-amp-16xa100.yaml"))).exit_code == 2);
}

TEST_CASE("an unknown GPU or model far from every entry says how to add it and a typo gets a did-you-mean",
          "[cli][list][issue54]") {
  auto job = [](const std::string& gpu, const std::string& model) {
    return ptp::test::write_temp_file("job.yaml", "model: " + model + "\nprecision: bf16\nbatch_size: 1\nseq_len: 4096\n"
                                                  "cluster:\n  gpu: " + gpu + "\n  num_gpus: 8\n");
  };
  auto one_line_error = [](const ptp::test::CommandResult& r) {
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    return r.err;
  };
  const std::string mi300x = job("mi300x", "llama3-8b");
  const auto far_gpu = one_line_error(run_command(predict(mi300x)));
  CHECK_THAT(far_gpu, Catch::Contains(mi300x + ":6:8: cluster.gpu: unknown GPU 'mi300x': not in the catalog; add ") &&
                          Catch::Contains("configs/gpus/mi300x.yaml (see docs/extending.md), or run ptp-predict --list gpus"));
  CHECK_THAT(far_gpu, !Catch::Contains("did you mean") && !Catch::Contains("gb300"));
  const auto near_gpu = one_line_error(run_command(predict(job("h100-sxm5-80g", "llama3-8b"))));
  CHECK_THAT(near_gpu, Catch::Contains("unknown GPU 'h100-sxm5-80g' (did you mean: h100-sxm5-80gb"));
  CHECK_THAT(near_gpu, !Catch::Contains("configs/gpus/"));
  // An alias counts as a name: h100x is one slip from H100, and the suggestion is its entry's id.
  CHECK_THAT(one_line_error(run_command(predict(job("h100x", "llama3-8b")))),
             Catch::Contains("(did you mean: h100-sxm5-80gb"));
  const auto far_model = one_line_error(run_command(predict(job("h100-sxm5-80gb", "mistral-large"))));
  CHECK_THAT(far_model, Catch::Contains("model: unknown model 'mistral-large': not in the catalog; add ") &&
                            Catch::Contains("configs/models/mistral-large.yaml (see docs/extending.md), or run "
                                            "ptp-predict --list models"));
  CHECK_THAT(far_model, !Catch::Contains("did you mean"));
  const auto near_model = one_line_error(run_command(predict(job("h100-sxm5-80gb", "llama-3-8b"))));
  CHECK_THAT(near_model, Catch::Contains("unknown model 'llama-3-8b' (did you mean: llama3-8b"));
  CHECK_THAT(near_model, !Catch::Contains("configs/models/llama-3-8b.yaml"));
}
