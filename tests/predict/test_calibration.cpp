// Calibration (--calibrate): the step parts, the stack's fit, transfer to other configurations, and
// the physics a calibration must keep (scaling and precision ratios).
// The "measured" steps here are synthetic: a stack whose parts run at known factors of the
// analytical prediction (a hidden CalibrationFit), so a test knows the truth it should recover.
#include <catch2/catch.hpp>

#include <cmath>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/calibration.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/vocab/error.hpp"

using namespace ptp::predict;

namespace {
const Catalogs& catalogs() {
  static const Catalogs c(std::string(PTP_SOURCE_DIR) + "/configs");
  return c;
}

Prediction predict(const std::string& model, const std::string& precision, const std::string& gpu, int gpus,
                   int batch, int seq_len, const std::string& extra = "") {
  std::string text = "model: " + model + "\nprecision: " + precision + "\nbatch_size: " + std::to_string(batch) +
                     "\nseq_len: " + std::to_string(seq_len) + "\ncluster: {gpu: " + gpu +
                     ", num_gpus: " + std::to_string(gpus) + ", gpus_per_node: " + std::to_string(std::min(gpus, 8)) +
                     "}\n" + extra;
  return predict_analytical(resolve_job(parse_job_spec(YamlReader::load_string(text, "job.yaml")), catalogs()));
}

// A synthetic stack: every part of the step at a known factor of the prediction.
struct SyntheticStack {
  CalibrationFit truth;
  double measured(const Prediction& p) const { return truth.seconds(step_parts(p)); }
  CalibrationPoint point(const Prediction& p) const { return {"synthetic", step_parts(p), measured(p), transfer_key(p)}; }
};
SyntheticStack stack(double kernels, double memory_bound, double communication, double host = 1.0) {
  SyntheticStack s;
  s.truth.log_gemm = std::log(kernels);
  s.truth.log_memory_bound = std::log(kernels * memory_bound);
  s.truth.log_communication = std::log(communication);
  s.truth.log_host = std::log(host);
  return s;
}

double ape(double predicted, double measured) { return std::fabs(predicted - measured) / measured; }

// Error of the uncalibrated and the calibrated prediction of `target`, calibrated on `points`.
std::pair<double, double> transfer_errors(const SyntheticStack& s, const std::vector<Prediction>& points,
                                          const Prediction& target) {
  std::vector<CalibrationPoint> pts;
  for (const auto& p : points) pts.push_back(s.point(p));
  const Calibrator c(pts);
  Prediction calibrated = target;
  c.apply(calibrated);
  return {ape(target.iteration_s, s.measured(target)), ape(calibrated.iteration_s, s.measured(target))};
}
}  // namespace

TEST_CASE("step parts add up to the predicted step and name the GEMM math class", "[calibration]") {
  for (const auto& p : {predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 16, 32, 128),
                        predict("gpt3-2.7b", "amp_bf16", "h100-sxm5-80gb", 64, 4, 2048,
                                "parallelism: {tensor: 2, pipeline: 2}\nglobal_batch_size: 256\n")}) {
    const StepParts s = step_parts(p);
    CHECK(s.total() == Approx(p.iteration_s).epsilon(1e-9));
    CHECK(s.gemm > s.memory_bound);  // transformers spend most kernel time in GEMMs
    CHECK(s.communication > 0);
    CHECK(s.gemm_class == "fp16_bf16");
  }
  CHECK(gemm_math_class("tf32") == "tf32");
  CHECK(gemm_math_class("fp32") == "fp32");
  CHECK(gemm_math_class("fp8") == "fp8");
}

TEST_CASE("one measured step: the same job comes back at its measurement, with named factors", "[calibration]") {
  const auto p = predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 8, 32, 128);
  const auto s = stack(1.4, 1.2, 1.5);
  const Calibrator c({s.point(p)});
  Prediction q = p;
  c.apply(q);
  CHECK(ape(q.iteration_s, s.measured(p)) < 0.01);
  CHECK(c.fit_residual() < 0.1 * c.uncalibrated_residual());
  REQUIRE(q.calibration.applied);
  CHECK(q.calibration.points == 1);
  CHECK(q.calibration.uncalibrated_iteration_s == Approx(p.iteration_s));
  std::map<std::string, double> f(q.calibration.factors.begin(), q.calibration.factors.end());
  for (const char* name : {"gemm", "memory_bound_kernels", "communication", "host_overhead"}) CHECK(f.count(name) == 1);
  // One configuration is one number: it cannot tell a slower stack's kernels from its slower fabric,
  // so it fits one factor on every part, the measured ratio.
  CHECK(q.calibration.configurations == 1);
  const double ratio = s.measured(p) / p.iteration_s;
  for (const auto& [name, factor] : f) CHECK(factor == Approx(ratio).epsilon(0.01));
  // Everything derived from the step follows it.
  CHECK(q.samples_per_second == Approx(p.samples_per_second * p.iteration_s / q.iteration_s));
  CHECK(q.mfu == Approx(p.mfu * p.iteration_s / q.iteration_s));
  CHECK(q.iteration_high_s / q.iteration_s == Approx(p.iteration_high_s / p.iteration_s));
  const double parts = q.breakdown.forward + q.breakdown.backward + q.breakdown.optimizer + q.breakdown.loss_scaling +
                       q.breakdown.communication_exposed;
  CHECK(parts == Approx(q.iteration_s).epsilon(0.05));
}

TEST_CASE("transfer: a correction measured at 8 GPUs carries to 64 and 512", "[calibration]") {
  const auto s = stack(1.3, 1.3, 1.3);  // a uniformly slower stack
  const auto at8 = predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 8, 32, 128);
  for (int gpus : {64, 512}) {
    const auto [before, after] = transfer_errors(s, {at8}, predict("bert-large", "amp_fp16", "a100-sxm4-80gb", gpus, 32, 128));
    INFO(gpus << " GPUs: " << before << " -> " << after);
    CHECK(after < 0.5 * before);
  }
}

TEST_CASE("transfer: two GPU counts separate compute from communication", "[calibration]") {
  // Batch 4 per GPU: at 64 GPUs about 30 % of the predicted step is exposed all-reduce.
  const auto s = stack(1.0, 1.0, 3.0);  // a slow fabric, kernels as predicted
  const auto one = predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 1, 4, 128);
  const auto many = predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 64, 4, 128);
  const auto target = predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 256, 4, 128);
  std::vector<CalibrationPoint> pts{s.point(one), s.point(many)};
  std::map<std::string, double> f;
  for (const auto& [k, v] : Calibrator(pts).fit().factors()) f[k] = v;
  INFO("communication " << f["communication"] << ", kernels " << f["gemm"]);
  CHECK(f["communication"] > 1.8);
  CHECK(f["gemm"] == Approx(1.0).margin(0.1));
  const auto [before, after] = transfer_errors(s, {one, many}, target);
  INFO(before << " -> " << after);
  CHECK(after < 0.5 * before);
  // One point at one GPU cannot know the fabric: its one factor is the kernels' (1.0 here).
  std::map<std::string, double> g;
  for (const auto& [k, v] : Calibrator({s.point(one)}).fit().factors()) g[k] = v;
  CHECK(g["communication"] == Approx(1.0).margin(0.01));
}

TEST_CASE("communication beyond its overlap: a slower all-reduce first uses up the hidden part", "[calibration]") {
  StepParts s;
  s.communication = 1, s.communication_hidden = 2;
  CHECK(s.communication_seconds(1.0) == Approx(1.0));
  CHECK(s.communication_seconds(0.5) == Approx(0.5));  // faster: the exposed part shrinks with it
  CHECK(s.communication_seconds(2.0) == Approx(2.0 + 2.0));  // slower: every extra second shows
  // Parts of a DDP job: the hidden share is what the prediction overlaps with the backward pass.
  const auto p = predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 8, 32, 128);
  const auto parts = step_parts(p);
  CHECK(parts.communication_hidden > parts.communication);
  CHECK(parts.communication_hidden == Approx(p.breakdown.communication - p.breakdown.communication_exposed));
  CHECK(step_parts(predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 1, 32, 128)).communication_hidden == 0);
  // A step whose all-reduce the prediction hides entirely: a slower measurement can still be the fabric.
  StepParts hidden;
  hidden.gemm = 0.6, hidden.memory_bound = 0.3, hidden.host = 0.1, hidden.communication_hidden = 0.4;
  hidden.gemm_class = "fp16_bf16";
  const TransferKey key{"a100-sxm4-80gb", "amp_fp16", "32", "1/1/1/1/1/none/none", 8};
  const TransferKey one_gpu{"a100-sxm4-80gb", "amp_fp16", "32", "1/1/1/1/1/none/none", 1};
  StepParts alone = hidden;  // the same kernels on one GPU: nothing to communicate, measured as predicted
  alone.communication_hidden = 0;
  const auto fit = fit_calibration({{"synthetic", hidden, 1.2, key}, {"synthetic", alone, 1.0, one_gpu}});
  CHECK(fit.log_communication > 0);
  CHECK(fit.seconds(hidden) == Approx(1.2).epsilon(0.02));
  CHECK(fit.seconds(alone) == Approx(1.0).epsilon(0.02));
}

TEST_CASE("transfer: a slow fabric measured at 8 GPUs does not slow the 1-GPU job", "[calibration]") {
  // Kernels as predicted, all-reduce 3x slower: at 8 GPUs the step grows because the all-reduce
  // outgrows its overlap. One point cannot say why its step is slower, so it slows every job by its
  // ratio; a second point at 2 GPUs shows the slowdown grows with the communication, and the fit
  // blames the fabric, not the kernels the 1-GPU job runs.
  const auto s = stack(1.0, 1.0, 3.0);
  const auto at8 = predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 8, 32, 128);
  const auto at2 = predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 2, 32, 128);
  const auto at1 = predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 1, 32, 128);
  REQUIRE(s.measured(at8) > 1.15 * at8.iteration_s);  // the slow fabric shows at 8 GPUs
  const double slowdown = s.measured(at8) / at8.iteration_s - 1;
  const auto [before1, one_point] = transfer_errors(s, {at8}, at1);
  CHECK(one_point == Approx(slowdown).epsilon(0.01));  // one factor: the 8-GPU ratio everywhere
  const auto [before, after] = transfer_errors(s, {at8, at2}, at1);
  INFO("1 GPU: " << before << " -> " << after << "; the 8-GPU step is " << slowdown << " slower");
  CHECK(after < 0.5 * slowdown);
  const auto [before64, after64] = transfer_errors(s, {at8, at2}, predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 64, 32, 128));
  INFO("64 GPUs: " << before64 << " -> " << after64);
  CHECK(after64 < 0.5 * before64);
}

TEST_CASE("transfer: measured on one GPU type, predicted on another of the same stack", "[calibration]") {
  const auto s = stack(1.25, 1.5, 1.2);
  const auto [before, after] = transfer_errors(s, {predict("bert-large", "amp_bf16", "a100-sxm4-80gb", 8, 32, 128)},
                                               predict("bert-large", "amp_bf16", "h100-sxm5-80gb", 8, 32, 128));
  INFO(before << " -> " << after);
  CHECK(after < 0.6 * before);
}

TEST_CASE("physics: measured in BF16, the FP8 speed-up is the uncalibrated one", "[calibration][physics]") {
  // The stack's BF16 GEMMs run 1.5x slower than predicted (synthetic). One BF16 point says nothing of
  // FP8 apart from the stack's factor: the calibrated FP8/BF16 speed-up stays the uncalibrated one
  // (the bound is 2 %), and the GEMM factor carries to FP8 as the stack's.
  SyntheticStack s = stack(1.0, 1.0, 1.0);
  s.truth.log_gemm = std::log(1.5);
  const auto bf16 = predict("gpt3-2.7b", "amp_bf16", "h100-sxm5-80gb", 8, 8, 2048);
  const auto fp8 = predict("gpt3-2.7b", "fp8", "h100-sxm5-80gb", 8, 8, 2048);
  const Calibrator c({s.point(bf16)});
  Prediction cb = bf16, cf = fp8;
  c.apply(cb);
  c.apply(cf);
  CHECK(ape(cb.iteration_s, s.measured(bf16)) < 0.02);
  const double speedup_before = bf16.iteration_s / fp8.iteration_s, speedup_after = cb.iteration_s / cf.iteration_s;
  INFO("speed-up " << speedup_before << " -> " << speedup_after);
  CHECK(speedup_after == Approx(speedup_before).epsilon(0.02));
  std::map<std::string, double> f;
  for (const auto& [k, v] : c.fit().factors()) f[k] = v;
  CHECK(f.count("gemm_fp8") == 0);
  CHECK(f.count("gemm_fp16_bf16") == 0);  // one math class measured: no class of its own
  // BF16 and FP8 points together separate the classes.
  s.truth.log_gemm_class["fp8"] = std::log(0.8);
  const Calibrator both({s.point(bf16), s.point(fp8)});
  std::map<std::string, double> g;
  for (const auto& [k, v] : both.fit().factors()) g[k] = v;
  CHECK(g.count("gemm_fp8") == 1);
  CHECK(g["gemm_fp8"] < g["gemm_fp16_bf16"]);
  CHECK(both.fit().seconds(step_parts(fp8)) == Approx(s.measured(fp8)).epsilon(0.03));
}

TEST_CASE("physics: a calibrated job never scales superlinearly unless the uncalibrated one does", "[calibration][physics]") {
  // Strong scaling of one global batch (synthetic stacks slower and faster than predicted, one point
  // and two): the calibrated step at N GPUs is never below the step at N/4 GPUs divided by 4 when
  // the uncalibrated one is not.
  const std::string llm = "global_batch_size: 256\nparallelism: {tensor: 2}\n";
  std::vector<Prediction> ladder;
  for (int gpus : {16, 32, 64, 128}) ladder.push_back(predict("gpt3-2.7b", "amp_bf16", "h100-sxm5-80gb", gpus, 4, 2048, llm));
  for (const auto& truth : {stack(1.2, 1.1, 1.0, 1.3), stack(0.8, 0.9, 0.5, 0.7), stack(1.0, 1.0, 3.0)})
    for (const bool two_points : {false, true}) {
      std::vector<CalibrationPoint> pts{truth.point(ladder[0])};
      if (two_points) pts.push_back(truth.point(ladder[2]));
      const Calibrator c(pts);
      for (std::size_t i = 1; i < ladder.size(); ++i) {
        Prediction small = ladder[i - 1], large = ladder[i];
        const double uncalibrated_speedup = small.iteration_s / large.iteration_s;
        c.apply(small);
        c.apply(large);
        INFO((two_points ? "two points" : "one point") << ", " << ladder[i].num_gpus << " GPUs: uncalibrated speed-up "
                                                        << uncalibrated_speedup << ", calibrated "
                                                        << small.iteration_s / large.iteration_s);
        REQUIRE(uncalibrated_speedup <= 2.0);
        CHECK(small.iteration_s / large.iteration_s <= 2.0 + 1e-9);
        if (!two_points) CHECK(small.iteration_s / large.iteration_s == Approx(uncalibrated_speedup).epsilon(1e-9));
      }
    }
}

TEST_CASE("transfer: batch and layout changes of an LLM job", "[calibration]") {
  const auto s = stack(1.2, 1.6, 1.4);
  const std::string llm = "global_batch_size: 256\n";
  const auto base = predict("gpt3-2.7b", "amp_bf16", "h100-sxm5-80gb", 16, 4, 2048, llm + "parallelism: {tensor: 2}\n");
  {
    const auto [before, after] =
        transfer_errors(s, {base}, predict("gpt3-2.7b", "amp_bf16", "h100-sxm5-80gb", 16, 8, 2048, llm + "parallelism: {tensor: 2}\n"));
    INFO("batch " << before << " -> " << after);
    CHECK(after < 0.6 * before);
  }
  {
    const auto [before, after] = transfer_errors(
        s, {base}, predict("gpt3-2.7b", "amp_bf16", "h100-sxm5-80gb", 16, 4, 2048, llm + "parallelism: {tensor: 4, pipeline: 2}\n"));
    INFO("layout " << before << " -> " << after);
    CHECK(after < 0.6 * before);
  }
}

TEST_CASE("calibration never leaves its own points worse, and says when a point is implausible", "[calibration]") {
  const auto a = predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 8, 32, 128);
  const auto b = predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 8, 32, 128);
  // Two contradictory measurements of one configuration (synthetic): the fit lands between them.
  std::vector<CalibrationPoint> pts{{"p1", step_parts(a), a.iteration_s * 1.5, transfer_key(a)},
                                    {"p2", step_parts(b), b.iteration_s * 0.8, transfer_key(b)}};
  const Calibrator c(pts);
  CHECK(c.fit_residual() <= c.uncalibrated_residual() + 1e-12);
  CHECK(c.warnings().empty());
  const Calibrator far({{"MEASURED.csv:2", step_parts(a), a.iteration_s * 6, transfer_key(a)}});
  REQUIRE(!far.warnings().empty());
  CHECK_THAT(far.warnings().front(), Catch::Contains("MEASURED.csv:2") && Catch::Contains("6.00x"));
  Prediction q = a;
  far.apply(q);
  bool factor_warning = false;
  for (const auto& w : q.warnings) factor_warning = factor_warning || w.find("outside 0.25x..4x") != std::string::npos;
  CHECK(factor_warning);
  CHECK_THROWS_AS(Calibrator(std::vector<CalibrationPoint>{}), InputError);
}

TEST_CASE("measured-steps CSV: relative job paths resolve against its folder", "[calibration]") {
  const auto steps = parse_measured_steps("job,step_time_s,gpu\njobs/a.yaml,0.25,x\n/abs/b.yaml,1e-3,y\n", "/data/m.csv");
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].job_path == "/data/jobs/a.yaml");
  CHECK(steps[0].line == 2);
  CHECK(steps[0].step_time_s == 0.25);
  CHECK(steps[1].job_path == "/abs/b.yaml");
  CHECK_THROWS_WITH(parse_measured_steps("job\nx.yaml\n", "m.csv"), Catch::Contains("step_time_s: missing column"));
  CHECK_THROWS_WITH(parse_measured_steps("job,step_time_s\nx.yaml,-1\n", "m.csv"), Catch::Contains("m.csv:2:2"));
}
