// Which level answers, with the shipped bundle (models/default): the learned compute level times
// most of a dense model's op time, and the JSON and the table say so.
#include <catch2/catch.hpp>
#include <algorithm>

#include <cmath>

#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

using ptp::test::binary;
using ptp::test::run_command;
using ptp::test::source_path;
using ptp::test::write_temp_file;

namespace {
nlohmann::json predict_json(const std::string& job, const std::string& extra = "") {
  const auto r = run_command(binary("ptp-predict") + " " + job + " --format json " + extra);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}
}  // namespace

TEST_CASE("the shipped bundle's compute level answers most of a dense job's op time", "[loop][bundle]") {
  const auto gpt2 = write_temp_file("gpt2-l4.yaml",
                                    "model: gpt2\nprecision: fp32\nbatch_size: 4\nseq_len: 1024\n"
                                    "cluster: {gpu: l4, num_gpus: 1}\n");
  const auto a = predict_json(gpt2);
  CHECK(a["predictor"]["kind"] == "learned");
  CHECK(a["predictor"]["compute_learned_share"].get<double>() >= 0.5);
  CHECK(a["predictor"]["communication"] == "analytical");  // one GPU: no collective to learn

  const auto b = predict_json(source_path("configs/jobs/bert-large-amp-16xa100.yaml"),
                              "--set cluster.num_gpus=1 --set cluster.gpus_per_node=1");
  CHECK(b["predictor"]["compute_learned_share"].get<double>() >= 0.5);

  const auto c = predict_json(source_path("configs/jobs/bert-large-amp-16xa100.yaml"));
  CHECK(c["predictor"]["communication"] == "learned");

  // --analytical: nothing learned answers, and the JSON says so.
  const auto d = predict_json(gpt2, "--analytical");
  CHECK(d["predictor"]["kind"] == "analytical");
  CHECK(d["predictor"]["compute_learned_share"].get<double>() == 0);

  const auto table = run_command(binary("ptp-predict") + " " + gpt2);
  // The aggregator's share is the bundle's fitted shrinkage of this job's support, printed and in JSON.
  const double share = a["predictor"]["aggregator_share"].get<double>();
  CHECK(share > 0);
  CHECK(share <= 1);
  CHECK_THAT(table.out, Catch::Contains("aggregator " + std::to_string(static_cast<int>(std::lround(100 * share))) + "%"));
  CHECK(a["predictor"]["support"]["runs_near"].get<int>() >= 0);
}

TEST_CASE("the shipped bundle says when a job extrapolates, shrinks its correction and widens its band", "[loop][bundle]") {
  // 256 H100s: the bundle has model-parallel FP8 runs near it.
  const auto llama = predict_json(source_path("configs/jobs/llama3-70b-fp8-256xh100.yaml"));
  CHECK(llama["predictor"]["kind"] == "learned");
  CHECK(llama["predictor"]["support"]["runs_near"].get<int>() > 0);
  // 65,536 H100s lie beyond every training run: extrapolating, said on the table, wider band.
  const std::string larger_args = "--set cluster.num_gpus=65536 --set global_batch_size=131072";
  const auto larger = predict_json(source_path("configs/jobs/llama3-70b-fp8-256xh100.yaml"), larger_args);
  CHECK(larger["predictor"]["support"]["extrapolating"] == true);
  const auto outside = larger["predictor"]["support"]["outside"];
  CHECK(std::find(outside.begin(), outside.end(), "log2_num_gpus") != outside.end());
  CHECK(larger["predictor"]["aggregator_share"].get<double>() <= llama["predictor"]["aggregator_share"].get<double>());
  auto width = [](const nlohmann::json& j) {
    return j["iteration"]["high"].get<double>() / j["iteration"]["low"].get<double>();
  };
  CHECK(width(larger) >= width(llama));
  const auto table = run_command(binary("ptp-predict") + " " + source_path("configs/jobs/llama3-70b-fp8-256xh100.yaml") + " " + larger_args);
  CHECK_THAT(table.out + table.err, Catch::Contains("extrapolating"));
  const auto analytical = predict_json(source_path("configs/jobs/llama3-70b-fp8-256xh100.yaml"), "--analytical");
  CHECK(analytical["predictor"]["aggregator_share"].get<double>() == 0);
  CHECK(llama["iteration"]["seconds"].get<double>() != analytical["iteration"]["seconds"].get<double>());
}

TEST_CASE("the learned correction scales every part of the breakdown: the parts still add up", "[loop][bundle]") {
  // NCF on 16 V100s: the aggregator moves the composed step far (its learned all-reduce is slow there);
  // Llama-3-70B: pipeline bubble and the model-parallel lines must follow the same factor. Named after
  // a trained codebase whose correction moves this job by a few per cent, so that the learned answer
  // departs clearly from the analytical one (torchtitan's lies within 1 % of it since its attention
  // kernel is modelled; nemo-automodel's since the retrain with codebase stacks). The analytical answer
  // is the same job's, codebase included: a codebase's recipes move it too (codebase_stack.hpp).
  const auto ncf = write_temp_file("ncf-16xv100.yaml", "model: ncf\nprecision: amp_fp16\nbatch_size: 65536\n"
                                                       "cluster: {gpu: v100-sxm3-32gb, num_gpus: 16}\n");
  auto parts_of = [](const nlohmann::json& b) {
    return b["forward"].get<double>() + b["backward"].get<double>() + b["recompute"].get<double>() +
           b["pp_bubble"].get<double>() + b["communication_exposed"].get<double>() + b["optimizer"].get<double>() +
           b["loss_scaling"].get<double>();
  };
  const std::pair<std::string, std::string> jobs[] = {
      {ncf, ""}, {source_path("configs/jobs/llama3-70b-fp8-256xh100.yaml"), "--set codebase=dle-pytorch"}};
  for (const auto& [job, args] : jobs) {
    const auto learned = predict_json(job, args), analytical = predict_json(job, args + " --analytical");
    const auto& it = learned["iteration"];
    const auto& b = it["breakdown"];
    INFO(job << ": " << it.dump());
    const double step = it["seconds"].get<double>();
    // Outside the parts is only the fixed per-step overhead (zero_grad, Python bookkeeping), which
    // the analytical answer shows as its step minus its parts; the learned one scales it alike.
    const double overhead = analytical["iteration"]["seconds"].get<double>() - parts_of(analytical["iteration"]["breakdown"]);
    REQUIRE(overhead > 0);
    CHECK(step - parts_of(b) >= -1e-9);
    CHECK(step - parts_of(b) <= 2 * overhead);
    const double lines = b["tp_communication"].get<double>() + b["cp_communication"].get<double>() +
                         b["ep_communication"].get<double>() + b["pp_communication"].get<double>() +
                         b["dp_communication"].get<double>();
    CHECK(lines == Approx(b["communication_exposed"].get<double>()).epsilon(1e-6));
    // And a learned factor was applied: the learned step differs from the analytical one.
    CHECK(std::fabs(step / analytical["iteration"]["seconds"].get<double>() - 1) > 0.01);
  }
}

TEST_CASE("ops the compute level declines are named in a warning", "[loop][bundle]") {
  // ResNet-50's time is convolutions, which no kernel table covers: the roofline times them.
  const auto j = predict_json(source_path("configs/jobs/resnet50-amp-8xa100.yaml"));
  bool named = false;
  for (const auto& w : j["warnings"]) named = named || w.get<std::string>().find("conv") != std::string::npos;
  CHECK(named);
  CHECK(j["predictor"]["compute_learned_share"].get<double>() < 0.95);
}
