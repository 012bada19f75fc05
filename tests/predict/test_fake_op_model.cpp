// The step model composes whatever the op-time seam answers, and nothing else of it: with a fake
// compute level (1 ms per GEMM launch, 0 for every other op; like XGBoost's CreateTestModel, a
// model whose answers are known by construction) the forward and backward passes are exactly the
// GEMM count times 1 ms per micro-batch, and the step moves by exactly that much when a GEMM is
// added or the micro-batch count grows, and not at all when only the micro-batch size does.
#include <catch2/catch.hpp>

#include <algorithm>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/resolved_job.hpp"

using namespace ptp::predict;

namespace {

constexpr double kGemmSeconds = 1e-3;

class OneMillisecondPerGemm final : public OpTimeModel {
 public:
  double seconds(const Op& op, const ResolvedJob&, bool, double) const override {
    return op.kind == OpKind::gemm ? kGemmSeconds : 0.0;
  }
};

class DeclinesEverything final : public OpTimeModel {
 public:
  double seconds(const Op&, const ResolvedJob&, bool, double) const override { return -1; }
};

const Catalogs& catalogs() {
  static const Catalogs c(std::string(PTP_SOURCE_DIR) + "/configs");
  return c;
}

// One GPU in true FP32 under PyTorch eager: no communication, casts or loss scaling, so the passes
// are the op times alone (launch overheads stay below the GPU time).
ResolvedJob gpt2_job(int batch_size, int grad_accum = 1) {
  const std::string text = "model: gpt2\nprecision: fp32\nbatch_size: " + std::to_string(batch_size) +
                           "\ngrad_accum: " + std::to_string(grad_accum) +
                           "\nseq_len: 256\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 1}\n";
  return resolve_job(parse_job_spec(YamlReader::load_string(text, "job.yaml")), catalogs());
}

Prediction predict_with(const ResolvedJob& job, const OpTimeModel& model) {
  AnalyticalConstants k;
  k.op_model = &model;
  return predict_analytical(job, k);
}

double gemms(const ResolvedJob& job) {
  const auto& ops = job.work().ops;
  return static_cast<double>(std::count_if(ops.begin(), ops.end(), [](const Op& op) { return op.kind == OpKind::gemm; }));
}

// A weightless GEMM (both operands activations), so the optimizer, the weight casts and the
// data-parallel traffic see no new parameters: only its two launches (forward and backward) add.
Op extra_gemm(const ResolvedJob& job) {
  Op op;
  op.name = "extra.gemm";
  op.kind = OpKind::gemm;
  op.layer = job.work().ops.back().layer;
  op.m = op.n = op.k = 64;
  op.fwd_flops = 2 * 64.0 * 64 * 64;
  op.bwd_flops = 2 * op.fwd_flops;
  op.elements_in = op.elements_out = 64 * 64;
  op.uses_gemm_math = true;
  return op;
}

}  // namespace

TEST_CASE("fake op model: the passes are the GEMM count times its 1 ms", "[analytical][seam]") {
  const ResolvedJob job = gpt2_job(8);
  const OneMillisecondPerGemm fake;
  const Prediction p = predict_with(job, fake);
  REQUIRE(gemms(job) > 0);
  CHECK(p.breakdown.forward == Approx(gemms(job) * kGemmSeconds).epsilon(1e-12));
  CHECK(p.breakdown.backward == Approx(gemms(job) * kGemmSeconds).epsilon(1e-12));
  CHECK(p.compute_learned_share == Approx(1.0).epsilon(1e-12));  // every op answered by the seam
}

TEST_CASE("fake op model: adding a GEMM moves the step by exactly 2 ms per micro-batch", "[analytical][seam]") {
  const OneMillisecondPerGemm fake;
  for (const int micro_batches : {1, 3}) {
    INFO("grad_accum " << micro_batches);
    const ResolvedJob base = gpt2_job(8, micro_batches);
    ResolvedJob more = base;
    more.workload.ops.push_back(extra_gemm(base));
    const Prediction before = predict_with(base, fake), after = predict_with(more, fake);
    const double expected = micro_batches * 2 * kGemmSeconds;  // its forward and its backward launch
    CHECK(after.iteration_s - before.iteration_s == Approx(expected).epsilon(1e-9));
    CHECK(after.breakdown.forward - before.breakdown.forward == Approx(micro_batches * kGemmSeconds).epsilon(1e-9));
    CHECK(after.breakdown.optimizer == before.breakdown.optimizer);
  }
}

TEST_CASE("fake op model: batch changes move the step only through the GEMMs it answers", "[analytical][seam]") {
  const OneMillisecondPerGemm fake;
  const ResolvedJob small = gpt2_job(8), large = gpt2_job(16), accumulated = gpt2_job(8, 2);
  REQUIRE(gemms(small) == gemms(large));
  const Prediction p_small = predict_with(small, fake);
  // A larger micro-batch runs the same GEMM launches: 1 ms each whatever their size.
  CHECK(predict_with(large, fake).iteration_s == Approx(p_small.iteration_s).epsilon(1e-12));
  // A second micro-batch repeats every launch once more.
  CHECK(predict_with(accumulated, fake).iteration_s - p_small.iteration_s ==
        Approx(2 * gemms(small) * kGemmSeconds).epsilon(1e-9));
}

TEST_CASE("fake op model: declining every op leaves the analytical step as it was", "[analytical][seam]") {
  const ResolvedJob job = gpt2_job(8);
  const DeclinesEverything declines;
  const Prediction seam = predict_with(job, declines), analytical = predict_analytical(job);
  CHECK(seam.iteration_s == analytical.iteration_s);
  CHECK(seam.breakdown.forward == analytical.breakdown.forward);
  CHECK(seam.compute_learned_share == 0);
}
