// How FP8 GEMM operands are scaled (job key fp8_recipe, fp8_recipe.hpp): a row-wise recipe's GEMMs run
// at the 16-bit rate and its backward casts every operand again; nothing else moves, and a job whose
// GEMMs are not FP8 has no recipe.
#include <catch2/catch.hpp>

#include "llm_test_support.hpp"
#include "ptp/vocab/llm_run_reading.hpp"
#include "ptp/vocab/fp8_recipe.hpp"

using namespace ptp::predict;
using ptp::test::error_of;
using ptp::test::llm_job;
using ptp::test::op_named;
using ptp::test::predict;
using ptp::test::resolve;

namespace {
std::string job_with(const std::string& precision, const std::string& extra, const std::string& gpu = "h100-sxm5-80gb") {
  return llm_job("llama3-8b", 8, "sharding: fsdp\n" + extra, precision, gpu, 8192);
}

OpTime time_of(const std::string& yaml, const std::string& op) {
  const ResolvedJob job = resolve(yaml);
  return analytical_op_time(op_named(job.workload.ops, op), job, AnalyticalConstants{});
}

// Forward + backward seconds of the ops that are not GEMMs (attention, norms, element-wise, ...).
double other_ops_seconds(const std::string& yaml) {
  const ResolvedJob job = resolve(yaml);
  double s = 0;
  for (const auto& op : job.workload.ops)
    if (op.kind != OpKind::gemm) {
      const OpTime t = analytical_op_time(op, job, AnalyticalConstants{});
      s += t.forward_s + t.backward_s;
    }
  return s;
}
}  // namespace

TEST_CASE("an FP8 job scales per tensor unless it names a recipe; other precisions have none", "[llm][fp8]") {
  REQUIRE(find_fp8_recipe(kDefaultFp8Recipe) != nullptr);
  CHECK_FALSE(find_fp8_recipe(kDefaultFp8Recipe)->gemms_at_16bit_rate);
  CHECK(resolve(job_with("fp8", "")).fp8_recipe->id == "tensorwise");
  CHECK(resolve(job_with("fp8", "fp8_recipe: rowwise\n")).fp8_recipe->id == "rowwise");
  CHECK(predict(job_with("fp8", "fp8_recipe: rowwise\n")).fp8_recipe == "rowwise");
  // A recipe on a job without FP8 GEMMs is read and ignored: the same step, and none reported.
  for (const std::string precision : {"bf16", "amp_bf16", "fp4"}) {
    INFO(precision);
    const std::string plain = job_with(precision, "", "b200-sxm-180gb"), named = job_with(precision, "fp8_recipe: rowwise\n", "b200-sxm-180gb");
    CHECK(resolve(named).fp8_recipe == nullptr);
    CHECK(predict(named).fp8_recipe.empty());
    CHECK(predict(named).iteration_s == Approx(predict(plain).iteration_s).epsilon(1e-12));
  }
}

TEST_CASE("row-wise FP8 GEMMs run at the 16-bit rate; only the GEMMs and the casts move", "[llm][fp8]") {
  for (const std::string gpu : {"h100-sxm5-80gb", "b200-sxm-180gb"}) {
    INFO(gpu);
    const std::string tensorwise = job_with("fp8", "", gpu), rowwise = job_with("fp8", "fp8_recipe: rowwise\n", gpu),
                      bf16 = job_with("bf16", "", gpu);
    // A large MLP GEMM is compute-bound: row-wise takes the BF16 GEMM's time (its FP8 operands move
    // fewer bytes, which a compute-bound kernel does not see), per-tensor scaling about half of it.
    const OpTime row = time_of(rowwise, "layer0.mlp_up"), tensor = time_of(tensorwise, "layer0.mlp_up"),
                 half = time_of(bf16, "layer0.mlp_up");
    CHECK(row.forward_s == Approx(half.forward_s).epsilon(0.02));
    CHECK(row.backward_s == Approx(half.backward_s).epsilon(0.02));
    CHECK(tensor.forward_s < 0.7 * row.forward_s);
    CHECK(other_ops_seconds(rowwise) == Approx(other_ops_seconds(tensorwise)));
    const auto r = predict(rowwise), t = predict(tensorwise);
    CHECK(r.iteration_s > t.iteration_s);
    CHECK(r.memory.per_gpu_bytes == Approx(t.memory.per_gpu_bytes));  // memory is not modelled per recipe
  }
}

TEST_CASE("a row-wise recipe's backward casts its operands again", "[llm][fp8]") {
  // The casting passes of the stage, apart from the GEMMs' own time.
  const ResolvedJob tensorwise = resolve(job_with("fp8", "")), rowwise = resolve(job_with("fp8", "fp8_recipe: rowwise\n"));
  const AnalyticalConstants k;
  const ParallelConstants pk;
  const Layout lt = make_layout(tensorwise), lr = make_layout(rowwise);
  const auto st = stage_time(partition_stages(tensorwise.workload, lt).front(), tensorwise, lt, k, pk, false);
  const auto sr = stage_time(partition_stages(rowwise.workload, lr).front(), rowwise, lr, k, pk, false);
  CHECK(sr.casts == Approx(st.casts));        // the forward casts are the same
  CHECK(sr.bwd_casts > 1.5 * st.bwd_casts);  // the output gradient twice, input and weight again
}

TEST_CASE("an unknown FP8 recipe is a one-line error naming the key", "[llm][fp8]") {
  const std::string e = error_of(job_with("fp8", "fp8_recipe: blockwise_1x128\n"));
  CHECK_THAT(e, Catch::Contains("fp8_recipe: unknown value 'blockwise_1x128'"));
  CHECK_THAT(e, Catch::Contains("expected tensorwise | rowwise"));
}

TEST_CASE("published FP8 rows name their recipe as published", "[llm][fp8]") {
  ptp::vocab::PublishedLlmRun row;
  row.framework = "torchtitan (PyTorch FSDP2/DTensor)";
  row.precision = "fp8";
  row.precision_as_published = "float8 rowwise (torchao) + BF16";
  CHECK(ptp::vocab::read_llm_run(row).fp8_recipe == "rowwise");
  row.precision_as_published = "Float8 (torchao float8 tensorwise)";
  CHECK(ptp::vocab::read_llm_run(row).fp8_recipe.empty());
}
