// ptp-profile --from-job: zoo jobs expand to the op shapes the model needs (checked by hand against
// the models), deduplicated; bad job files exit 2 with one line; a real host run writes valid rows.
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "ptp/profile/detail/cuda_work.hpp"
#include "from_job.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "ptp/profile/cuda_device.hpp"
#include "ptp/profile/microbenchmark.hpp"
#include "ptp/profile/sweep.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/hardware.hpp"
#include "test_helpers.hpp"

using ptp::profile_app::JobPoint;
using ptp::profile_app::JobSweep;

namespace {

JobSweep load(const std::string& job, bool host = false) {
  return ptp::profile_app::load_job_sweep(ptp::vocab::config_root() + "/jobs/" + job, ptp::vocab::config_root(), host);
}

bool has(const JobSweep& s, const std::string& bench, const std::map<std::string, std::string>& params) {
  return std::any_of(s.points.begin(), s.points.end(),
                     [&](const JobPoint& p) { return p.bench == bench && p.params == params; });
}

std::size_t count(const JobSweep& s, const std::string& bench) {
  return static_cast<std::size_t>(
      std::count_if(s.points.begin(), s.points.end(), [&](const JobPoint& p) { return p.bench == bench; }));
}

void check_distinct(const JobSweep& s) {
  std::set<std::string> keys;
  for (const auto& p : s.points) CHECK(keys.insert(p.key()).second);
}

int run_shell(const std::string& cmd) {
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace

TEST_CASE("from-job: BERT-large AMP expands to its GEMMs (fwd, dgrad, wgrad), deduplicated") {
  const JobSweep s = load("bert-large-amp-16xa100.yaml");
  check_distinct(s);
  // 24 identical layers: far fewer distinct points than ops.
  CHECK(s.ops > 300);
  CHECK(s.points.size() < 60);
  // qkv: m = batch*seq = 64*128, n = 3*1024, k = 1024, fp16 (amp_fp16 GEMM math).
  CHECK(has(s, "cublaslt_gemm", {{"m", "8192"}, {"n", "3072"}, {"k", "1024"}, {"dtype", "fp16"}, {"pass", "fwd"}}));
  CHECK(has(s, "cublaslt_gemm", {{"m", "8192"}, {"n", "1024"}, {"k", "3072"}, {"dtype", "fp16"}, {"pass", "dgrad"}}));
  CHECK(has(s, "cublaslt_gemm", {{"m", "1024"}, {"n", "3072"}, {"k", "8192"}, {"dtype", "fp16"}, {"pass", "wgrad"}}));
  // FFN up: 1024 -> 4096.
  CHECK(has(s, "cublaslt_gemm", {{"m", "8192"}, {"n", "4096"}, {"k", "1024"}, {"dtype", "fp16"}, {"pass", "fwd"}}));
  // attention scores: batch*heads = 64*16 strided GEMMs of 128x128x64.
  CHECK(has(s, "cublaslt_batched_gemm",
            {{"m", "128"}, {"n", "128"}, {"k", "64"}, {"batch", "1024"}, {"dtype", "fp16"}, {"pass", "fwd"}}));
  // layernorm over 8192 tokens x 1024 (AMP keeps norms in fp32), softmax over 128 keys.
  CHECK(has(s, "cuda_layernorm", {{"rows", "8192"}, {"cols", "1024"}, {"dtype", "fp32"}}));
  CHECK(count(s, "cuda_softmax") >= 1);
  CHECK(count(s, "cuda_elementwise") >= 1);
  // Word-embedding lookups: autocast leaves embeddings alone, so they gather FP32 rows (as predicted).
  CHECK(has(s, "cuda_embedding", {{"vocab", "30522"}, {"dim", "1024"}, {"tokens", "8192"}, {"dtype", "fp32"}}));
  CHECK(count(s, "cuda_optimizer") == 1);
  // 16 GPUs on 2 nodes: 25 MB buckets + the remainder, intra-node (8 ranks) and across nodes (16).
  CHECK(has(s, "nccl_all_reduce", {{"size_bytes", "25000000"}, {"dtype", "fp32"}, {"ranks", "8"}, {"nodes", "1"}}));
  CHECK(has(s, "nccl_all_reduce", {{"size_bytes", "25000000"}, {"dtype", "fp32"}, {"ranks", "16"}, {"nodes", "2"}}));
  CHECK(count(s, "nccl_all_reduce") == 4);
}

TEST_CASE("from-job: ResNet-50 convolutions are recovered as cuDNN shapes") {
  const JobSweep s = load("resnet50-amp-8xa100.yaml");
  check_distinct(s);
  CHECK(s.points.size() < s.ops * 3u);
  // stem: 7x7 stride 2 on 224x224x3, batch 256; the first conv has no data gradient.
  const std::map<std::string, std::string> stem{{"n", "256"},    {"c", "3"},   {"h", "224"},    {"w", "224"},
                                                 {"k", "64"},     {"r", "7"},   {"s", "7"},      {"stride", "2"},
                                                 {"pad", "3"},    {"dtype", "fp16"}, {"layout", "nhwc"}};
  CHECK(has(s, "cudnn_conv_fwd", stem));
  CHECK(has(s, "cudnn_conv_bwd_filter", stem));
  CHECK_FALSE(has(s, "cudnn_conv_bwd_data", stem));
  // layer1 3x3: 64 -> 64 channels on 56x56.
  CHECK(has(s, "cudnn_conv_fwd", {{"n", "256"}, {"c", "64"}, {"h", "56"}, {"w", "56"}, {"k", "64"}, {"r", "3"},
                                  {"s", "3"}, {"stride", "1"}, {"pad", "1"}, {"dtype", "fp16"}, {"layout", "nhwc"}}));
  CHECK(count(s, "cudnn_conv_bwd_data") + 1 == count(s, "cudnn_conv_fwd"));
  // The convs are profiled in the job's layout: a PyTorch job that does not convert runs NCHW.
  const ptp::predict::Catalogs catalogs(ptp::vocab::config_root());
  auto nchw = ptp::predict::load_job_spec(ptp::vocab::config_root() + "/jobs/resnet50-amp-8xa100.yaml", {{"memory_format", "nchw"}});
  const JobSweep channels_first = ptp::profile_app::job_sweep(ptp::predict::resolve_job(nchw, catalogs), false);
  auto stem_nchw = stem;
  stem_nchw["layout"] = "nchw";
  CHECK(has(channels_first, "cudnn_conv_fwd", stem_nchw));
  CHECK_FALSE(has(channels_first, "cudnn_conv_fwd", stem));
  // fc: 2048 -> 1000 over the batch.
  CHECK(has(s, "cublaslt_gemm", {{"m", "256"}, {"n", "1000"}, {"k", "2048"}, {"dtype", "fp16"}, {"pass", "fwd"}}));
  // Batch norms run at the activation dtype under autocast: layer1's over 256*56*56 rows x 64 channels.
  CHECK(has(s, "cuda_layernorm", {{"rows", "802816"}, {"cols", "64"}, {"dtype", "fp16"}}));
  for (const auto& p : s.points)
    if (p.bench == "cuda_layernorm") CHECK(p.params.at("dtype") == "fp16");
  CHECK(count(s, "cuda_optimizer") == 1);
  CHECK(count(s, "nccl_all_reduce") == 2);  // 8 GPUs, one node: full bucket + remainder
}

TEST_CASE("from-job: tensor parallelism and ZeRO change the gradient collectives") {
  // llama3-70b: 256 GPUs, tensor 4 x pipeline 4 -> 16 data-parallel ranks, 2 per 8-GPU node; zero1.
  const JobSweep s = load("llama3-70b-fp8-256xh100.yaml");
  check_distinct(s);
  CHECK(count(s, "nccl_all_reduce") == 0);
  CHECK(count(s, "nccl_reduce_scatter") == 4);
  CHECK(count(s, "nccl_all_gather") == 4);
  CHECK(has(s, "nccl_reduce_scatter", {{"size_bytes", "25000000"}, {"dtype", "bf16"}, {"ranks", "2"}, {"nodes", "1"}}));
  CHECK(has(s, "nccl_reduce_scatter", {{"size_bytes", "25000000"}, {"dtype", "bf16"}, {"ranks", "16"}, {"nodes", "8"}}));
  CHECK(count(s, "cublaslt_gemm") >= 1);
  for (const auto& p : s.points)
    if (p.bench == "cublaslt_gemm") CHECK(p.params.at("dtype") == "fp8_e4m3");
}

TEST_CASE("from-job: the host sweep validates against the host registry") {
  for (const char* job : {"bert-large-amp-16xa100.yaml", "resnet50-amp-8xa100.yaml", "transformer-xl-fp32-1xv100.yaml"}) {
    const JobSweep s = load(job, true);
    check_distinct(s);
    const auto sweep = ptp::profile::parse_sweep(ptp::profile_app::job_sweep_yaml(s, true), job, "host",
                                                 ptp::profile::Registry::instance());
    CHECK(sweep.points.size() == s.points.size());
    std::set<std::string> ids;
    for (const auto& p : sweep.points) CHECK(ids.insert(p.id).second);
  }
}

TEST_CASE("from-job: a bad job file is one clear line and exit 2") {
  const auto dir = ptp_test::temp_dir("from-job-bad");
  ptp_test::write_text(dir / "bad.yaml", "model: resnet50\nprecision: amp_fp16\nbatch_size: 256\nbatchsize: 3\n"
                                         "cluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n");
  const std::string err = (dir / "err.txt").string();
  CHECK(run_shell(std::string(PTP_PROFILE_EXE) + " --backend host --plan --from-job " + (dir / "bad.yaml").string() +
                  " > /dev/null 2> " + err) == 2);
  std::string text = ptp_test::read_text(err);
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);
  CHECK(text.find("error") != std::string::npos);
  CHECK(text.find("bad.yaml") != std::string::npos);
  CHECK(run_shell(std::string(PTP_PROFILE_EXE) + " --backend host --plan --from-job " + (dir / "missing.yaml").string() +
                  " > /dev/null 2> " + err) == 2);
  text = ptp_test::read_text(err);
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);
}

TEST_CASE("from-job: a real host run of a small job writes valid rows") {
  const auto dir = ptp_test::temp_dir("from-job-run");
  ptp_test::write_text(dir / "small.yaml", "model: gpt3-125m\nprecision: fp32\nbatch_size: 1\nseq_len: 32\n"
                                           "optimizer: adamw\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 1}\n"
                                           "run: {steps: 10}\n");
  const std::string out = (dir / "out").string();
  const std::string log = (dir / "log.txt").string();
  REQUIRE(run_shell(std::string(PTP_PROFILE_EXE) + " --backend host --from-job " + (dir / "small.yaml").string() +
                    " --out " + out + " > " + log + " 2>&1") == 0);
  const std::string csv = ptp_test::read_text(out + ".ops.csv");
  std::istringstream in(csv);
  std::string header, line;
  REQUIRE(std::getline(in, header));
  CHECK(header.find("point_id") != std::string::npos);
  int rows = 0, ok = 0, gemm = 0;
  while (std::getline(in, line)) {
    ++rows;
    if (line.find(",ok,") != std::string::npos) ++ok;
    if (line.find("host/host_gemm/") != std::string::npos) ++gemm;
  }
  const JobSweep s = ptp::profile_app::load_job_sweep((dir / "small.yaml").string(), ptp::vocab::config_root(), true);
  CHECK(rows == static_cast<int>(s.points.size()));
  CHECK(ok == rows);  // fp32 job: everything runs on the host
  CHECK(gemm >= 9);   // qkv, out, up, down: fwd + dgrad + wgrad (+ lm head)
  // qkv of gpt3-125m: 32 tokens x 768 -> 2304.
  CHECK(csv.find("host/host_gemm/dtype=fp32/k=768/m=32/n=2304") != std::string::npos);
}

namespace {
// The host sweep of a job as the runner sees it: parsed, then what the host refuses left out.
ptp::profile::Sweep host_sweep(const JobSweep& s, const std::string& name, std::size_t* dropped) {
  auto sweep = ptp::profile::parse_sweep(ptp::profile_app::job_sweep_yaml(s, true), name, "host",
                                         ptp::profile::Registry::instance());
  *dropped = ptp::profile::drop_unsupported(sweep);
  return sweep;
}

std::size_t with_dtype(const JobSweep& s, const std::string& dtype) {
  return static_cast<std::size_t>(std::count_if(s.points.begin(), s.points.end(), [&dtype](const JobPoint& p) {
    const auto it = p.params.find("dtype");
    return it != p.params.end() && it->second == dtype;
  }));
}
}  // namespace

TEST_CASE("from-job: the host plans only its fp32 points and counts the others by reason", "[from_job][skipped]") {
  // GPT-2 XL in bf16: the GEMMs and activations are bf16, the norms fp32.
  const JobSweep g = load("gpt2-xl-bf16-32xh100.yaml", true);
  const std::size_t bf16 = with_dtype(g, "bf16"), fp32 = with_dtype(g, "fp32");
  REQUIRE(bf16 > 0);
  REQUIRE(fp32 > 0);
  CHECK(bf16 + fp32 == g.points.size());
  std::size_t dropped = 0;
  const auto sweep = host_sweep(g, "gpt2", &dropped);
  CHECK(dropped == bf16);
  CHECK(sweep.points.size() == fp32);
  for (const auto& p : sweep.points) CHECK(p.point.params.at("dtype") == "fp32");
  REQUIRE(sweep.skipped.size() == 1);
  CHECK(sweep.skipped[0] == std::to_string(bf16) + " points skipped: bf16 not run by the host backend (fp32 only)");

  // Llama-3-70B FP8: nothing runs on the host; one line per dtype, most points first.
  const JobSweep l = load("llama3-70b-fp8-256xh100.yaml", true);
  const std::size_t fp8 = with_dtype(l, "fp8_e4m3"), lbf16 = with_dtype(l, "bf16");
  REQUIRE(fp8 > lbf16);
  REQUIRE(lbf16 > 0);
  const auto none = host_sweep(l, "llama", &dropped);
  CHECK(dropped == l.points.size());
  CHECK(none.points.empty());
  REQUIRE(none.skipped.size() == 2);
  CHECK(none.skipped[0] == std::to_string(fp8) + " points skipped: fp8_e4m3 not run by the host backend (fp32 only)");
  CHECK(none.skipped[1] == std::to_string(lbf16) + " points skipped: bf16 not run by the host backend (fp32 only)");

  // An fp32 job runs everything; so does the cuda backend for any job.
  const auto all = host_sweep(load("transformer-xl-fp32-1xv100.yaml", true), "txl", &dropped);
  CHECK(dropped == 0);
  CHECK(all.skipped.empty());
  ptp::profile::Registry plan_only;
  ptp::profile::cuda_work::register_plan_only(plan_only);
  auto cuda = ptp::profile::parse_sweep(ptp::profile_app::job_sweep_yaml(load("gpt2-xl-bf16-32xh100.yaml"), false),
                                        "gpt2", "h100-sxm5-80gb", plan_only);
  const std::size_t before = cuda.points.size();
  CHECK(ptp::profile::drop_unsupported(cuda) == 0);
  CHECK(cuda.points.size() == before);
}

TEST_CASE("from-job: skipped points are in the plan output and the log, and a job with none to run exits 2", "[from_job][skipped]") {
  const auto dir = ptp_test::temp_dir("from-job-skipped");
  const std::string out = (dir / "out.txt").string(), err = (dir / "err.txt").string();
  const std::string jobs = ptp::vocab::config_root() + "/jobs/";
  const JobSweep g = load("gpt2-xl-bf16-32xh100.yaml", true);
  const std::string line = std::to_string(with_dtype(g, "bf16")) + " points skipped: bf16 not run by the host backend (fp32 only)";
  REQUIRE(run_shell(std::string(PTP_PROFILE_EXE) + " --backend host --plan --from-job " + jobs +
                    "gpt2-xl-bf16-32xh100.yaml > " + out + " 2> " + err) == 0);
  const std::string plan = ptp_test::read_text(out), log = ptp_test::read_text(err);
  CHECK(plan.find("\n# " + line + "\n") != std::string::npos);
  CHECK(plan.find("# total: " + std::to_string(with_dtype(g, "fp32")) + " points,") != std::string::npos);
  CHECK(plan.find("dtype=bf16") == std::string::npos);
  CHECK(log.find("note: " + line) != std::string::npos);

  CHECK(run_shell(std::string(PTP_PROFILE_EXE) + " --backend host --out " + (dir / "rows").string() + " --from-job " +
                  jobs + "llama3-70b-fp8-256xh100.yaml > " + out + " 2> " + err) == 2);
  const std::string text = ptp_test::read_text(err);
  const std::string last = text.substr(text.rfind("ptp-profile: error:"));
  CHECK(std::count(last.begin(), last.end(), '\n') == 1);
  CHECK(last.find("no point runs on the host backend") != std::string::npos);
  CHECK(last.find("points skipped: fp8_e4m3 not run by the host backend (fp32 only)") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "rows.ops.csv"));
}

#ifdef PTP_TEST_HAVE_CUDA
TEST_CASE("from-job: the cuda sweep validates against the cuda registry") {
  std::string why;
  const bool loaded = ptp::profile::cuda::load(&why);  // registers the CUDA benchmarks
  INFO(why);
  REQUIRE(loaded);
  for (const char* job : {"bert-large-amp-16xa100.yaml", "resnet50-amp-8xa100.yaml", "llama3-70b-fp8-256xh100.yaml"}) {
    const JobSweep s = load(job);
    const auto sweep = ptp::profile::parse_sweep(ptp::profile_app::job_sweep_yaml(s, false), job, "a100-sxm4-80gb",
                                                 ptp::profile::Registry::instance());
    CHECK(sweep.points.size() == s.points.size());
  }
}
#endif

// Every example job plans points for both backends, the GEMMs among them, deduplicated; the counts
// (docs/profiling.md) are printed with -s.
TEST_CASE("from-job: every example job plans deduplicated points with its GEMMs", "[from_job]") {
  for (const char* job : {"resnet50-amp-8xa100.yaml", "bert-large-amp-16xa100.yaml", "gpt2-xl-bf16-32xh100.yaml",
                          "llama3-70b-fp8-256xh100.yaml", "transformer-xl-fp32-1xv100.yaml"}) {
    INFO(job);
    const JobSweep c = load(job), h = load(job, true);
    std::map<std::string, int> by;
    std::set<std::string> seen;
    for (const auto& p : c.points) {
      ++by[p.bench];
      CHECK(seen.insert(p.key()).second);
    }
    CHECK(c.ops > 0);
    CHECK_FALSE(c.points.empty());
    CHECK_FALSE(h.points.empty());
    CHECK(by["cublaslt_gemm"] > 0);
    std::string line = std::string(job) + ": " + std::to_string(c.ops) + " ops, cuda " + std::to_string(c.points.size()) +
                       ", host " + std::to_string(h.points.size()) + " |";
    for (const auto& [b, n] : by) line += " " + b + "=" + std::to_string(n);
    SUCCEED(line);
  }
}

TEST_CASE("from-job: a LoRA job profiles the shapes it runs: no weight gradient of frozen weights, the adapters'", "[from_job][lora]") {
  const ptp::predict::Catalogs catalogs(ptp::vocab::config_root());
  const std::string path = ptp::vocab::config_root() + "/jobs/gpt2-xl-bf16-32xh100.yaml";
  const JobSweep full = ptp::profile_app::job_sweep(ptp::predict::resolve_job(ptp::predict::load_job_spec(path), catalogs), false);
  const JobSweep lora = ptp::profile_app::job_sweep(
      ptp::predict::resolve_job(ptp::predict::load_job_spec(path, {{"finetune", "{method: lora, rank: 16, targets: [attention]}"}}), catalogs),
      false);
  auto wgrads = [](const JobSweep& s) {
    std::set<std::string> shapes;
    for (const auto& p : s.points)
      if (p.bench == "cublaslt_gemm" && p.params.at("pass") == "wgrad")
        shapes.insert(p.params.at("m") + "x" + p.params.at("n") + "x" + p.params.at("k"));
    return shapes;
  };
  // GPT-2 XL: hidden 1600; the QKV weight gradient [1600 x 4800] is gone, A's [1600 x 48] and
  // B's [16 x 4800] are there (m x n over the k = tokens of the micro-batch).
  const auto f = wgrads(full), l = wgrads(lora);
  const auto has_shape = [](const std::set<std::string>& s, const std::string& prefix) {
    return std::any_of(s.begin(), s.end(), [&](const std::string& x) { return x.rfind(prefix, 0) == 0; });
  };
  CHECK(has_shape(f, "1600x4800x"));
  CHECK_FALSE(has_shape(l, "1600x4800x"));
  CHECK(has_shape(l, "1600x48x"));
  CHECK(has_shape(l, "16x4800x"));
  CHECK_FALSE(has_shape(l, "1600x6400x"));  // frozen MLP: no weight gradient either
  CHECK(count(lora, "cuda_optimizer") == 1);
}
