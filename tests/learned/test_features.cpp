#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/learned/features.hpp"

using namespace ptp::predict;

namespace {
ResolvedJob job(const std::string& precision, const std::string& gpu) {
  static const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  const std::string text = "model: bert-large\nprecision: " + precision +
                           "\nbatch_size: 32\nseq_len: 128\ncluster: {gpu: " + gpu + ", num_gpus: 16}\n";
  return resolve_job(parse_job_spec(YamlReader::load_string(text, "job.yaml")), catalogs);
}
std::size_t index_of(const std::string& name) {
  const auto& names = run_feature_names(false);
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}
}  // namespace

TEST_CASE("run features: one value per name, finite, precision only when not blind", "[features]") {
  const auto j = job("amp_fp16", "a100-sxm4-80gb");
  const auto p = predict_analytical(j);
  const auto aware = run_features(j, p, false, p);
  const auto blind = run_features(j, p, true, p);
  CHECK(aware.size() == run_feature_names(false).size());
  CHECK(blind.size() == run_feature_names(true).size());
  CHECK(blind.size() < aware.size());
  for (float v : aware) CHECK(std::isfinite(v));
  for (const auto& n : run_feature_names(true)) CHECK(n.rfind("prec_", 0) != 0);
}

TEST_CASE("precision features follow the policy and the GPU's peaks", "[features]") {
  const auto fp32 = job("fp32", "a100-sxm4-80gb");
  const auto amp = job("amp_fp16", "a100-sxm4-80gb");
  const auto p32 = predict_analytical(fp32), p16 = predict_analytical(amp);
  const auto f32 = run_features(fp32, p32, false, p32);
  const auto f16 = run_features(amp, p16, false, p16);
  CHECK(f32[index_of("prec_tensor_cores")] == 0);
  CHECK(f16[index_of("prec_tensor_cores")] == 1);
  CHECK(f16[index_of("prec_peak_over_fp32")] == Approx(312.0 / 19.5));
  CHECK(f16[index_of("prec_loss_scaling")] == 1);
  // A GPU is described by its specs: two GPUs differ in spec features, not in an id.
  const auto h100 = job("amp_fp16", "h100-sxm5-80gb");
  const auto ph = predict_analytical(h100);
  const auto fh = run_features(h100, ph, false, ph);
  CHECK(fh[index_of("log_gpu_bandwidth")] > f16[index_of("log_gpu_bandwidth")]);
}

TEST_CASE("a faster fabric reaches the aggregator's row only through its constrained features", "[features]") {
  // The trees are monotone in the bandwidths and the exposed-communication share (trainer.cpp); every
  // other feature is read off the step without its exposed communication, so it cannot move with the
  // fabric and carry a larger correction for a faster network.
  static const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  auto on = [](const std::string& fabric) {
    const std::string text = "model: bert-large\nprecision: amp_fp16\nbatch_size: 32\nseq_len: 128\ncluster: {gpu: "
                             "a100-sxm4-80gb, num_gpus: 32, inter_node: " + fabric + "}\n";
    return resolve_job(parse_job_spec(YamlReader::load_string(text, "job.yaml")), catalogs);
  };
  const auto slow = on("eth-25"), fast = on("ib-ndr-400");
  const auto ps = predict_analytical(slow), pf = predict_analytical(fast);
  REQUIRE(ps.breakdown.communication_exposed > pf.breakdown.communication_exposed);
  const auto fs = run_features(slow, ps, false, ps), ff = run_features(fast, pf, false, pf);
  const std::set<std::string> constrained{"log_intra_bandwidth", "log_inter_node_bandwidth", "comm_exposed_share"};
  const auto& names = run_feature_names(false);
  for (std::size_t i = 0; i < names.size(); ++i) {
    CAPTURE(names[i]);
    if (constrained.count(names[i])) continue;
    CHECK(fs[i] == Approx(ff[i]).margin(1e-6));
  }
  CHECK(fs[index_of("log_inter_node_bandwidth")] < ff[index_of("log_inter_node_bandwidth")]);
  CHECK(fs[index_of("comm_exposed_share")] > ff[index_of("comm_exposed_share")]);
}

TEST_CASE("the aggregator sees the busy step's MFU against the policy's own peak", "[features]") {
  const auto fp32 = job("fp32", "a100-sxm4-80gb");
  const auto amp = job("amp_fp16", "a100-sxm4-80gb");
  const auto p32 = predict_analytical(fp32), p16 = predict_analytical(amp);
  const auto column = index_of("log_busy_mfu_precision_peak");
  REQUIRE(column < run_feature_names(false).size());
  // Over the step's busy part: the MFU the GPUs reach while not waiting on exposed communication.
  auto busy_mfu = [](const Prediction& p) {
    return p.mfu_precision_peak * p.iteration_s / (p.iteration_s - p.breakdown.communication_exposed);
  };
  REQUIRE(p16.breakdown.communication_exposed > 0);  // 16 GPUs: the all-reduce is partly exposed
  CHECK(run_features(fp32, p32, false, p32)[column] == Approx(std::log10(busy_mfu(p32))).margin(1e-5));
  CHECK(run_features(amp, p16, false, p16)[column] == Approx(std::log10(busy_mfu(p16))).margin(1e-5));
  // FP32 math runs nearer its (low) peak than AMP runs near the tensor-core peak.
  CHECK(p32.mfu_precision_peak > p16.mfu_precision_peak);
}

TEST_CASE("op and collective features: roofline and ring bounds", "[features]") {
  static const Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  const auto& a100 = catalogs.gpus().get("a100-sxm4-80gb", "");
  OpShape gemm{OpClass::gemm, 4096, 4096, 4096, 1, 2.0 * 4096 * 4096 * 4096, 3.0 * 4096 * 4096 * 2, "fp16"};
  CHECK(op_roofline_seconds(gemm, a100) == Approx(gemm.flops / 312e12));
  CHECK(op_features(gemm, a100).size() == op_feature_names().size());
  CollectiveShape c{1e9, 8, 1, 8};
  CHECK(collective_bound_seconds(c, a100, nullptr) == Approx(2.0 * 7 / 8 * 1e9 / 300e9));
  CHECK(collective_features(c, a100, nullptr).size() == collective_feature_names().size());
}
