// The compute level's architecture sibling (learned_models.hpp): a GPU without kernel rows for a
// math borrows the correction of a measured GPU with the same SM version and default power cap.
#include <catch2/catch.hpp>

#include "ptp/predict/learned/bundle.hpp"
#include "ptp/predict/resolved_job.hpp"

using namespace ptp::predict;

namespace {
const Catalogs& catalogs() {
  static const Catalogs c(std::string(PTP_SOURCE_DIR) + "/configs");
  return c;
}
OpShape gemm(const std::string& math) {
  OpShape s;
  s.op_class = OpClass::gemm;
  s.m = 8192, s.n = 4096, s.k = 4096, s.math = math;
  s.flops = 2 * s.m * s.n * s.k;
  s.bytes = 2 * (s.m * s.k + s.k * s.n + s.m * s.n);
  return s;
}
OpShape elementwise() {
  OpShape s;
  s.op_class = OpClass::elementwise;
  s.m = 8192 * 4096, s.math = "fp16", s.bytes = 3 * 2 * s.m, s.flops = s.m;
  return s;
}
}  // namespace

TEST_CASE("an unmeasured GPU borrows the correction of its measured architecture sibling", "[learned][physics]") {
  // Synthetic measured pairs (the trees are not asked): which GPU is whose sibling is catalog facts.
  LearnedOpModel model(TreeEnsemble{}, {"fp16"},
                       {"a100-sxm4-80gb|fp16", "h100-sxm5-80gb|fp16", "h100-sxm5-80gb|memory", "h800-sxm5-80gb|fp16"});
  const auto& gpus = catalogs().gpus();
  CHECK(model.measured_sibling(gpus.get("h200-sxm-141gb", ""), gemm("fp16")) == nullptr);  // no catalog yet
  model.attach_gpus(&gpus);
  const GpuSpec* s = model.measured_sibling(gpus.get("h200-sxm-141gb", ""), gemm("fp16"));
  REQUIRE(s);
  CHECK(s->id == "h100-sxm5-80gb");  // H100 and H800 tie on peak and bandwidth: the first id
  REQUIRE(model.measured_sibling(gpus.get("h200-sxm-141gb", ""), elementwise()));
  CHECK(model.measured_sibling(gpus.get("h200-sxm-141gb", ""), elementwise())->id == "h100-sxm5-80gb");
  // The A100 40 GB (sm_80) takes the 80 GB's GEMM correction; no sm_80 GPU has memory-bound rows here.
  REQUIRE(model.measured_sibling(gpus.get("a100-sxm4-40gb", ""), gemm("fp16")));
  CHECK(model.measured_sibling(gpus.get("a100-sxm4-40gb", ""), gemm("fp16"))->id == "a100-sxm4-80gb");
  CHECK(model.measured_sibling(gpus.get("a100-sxm4-40gb", ""), elementwise()) == nullptr);
  // Another architecture, or a board capped below its design power by default, has none.
  CHECK(model.measured_sibling(gpus.get("b200-sxm-180gb", ""), gemm("fp16")) == nullptr);
  CHECK(model.measured_sibling(gpus.get("h100-sxm5-96gb", ""), gemm("fp16")) == nullptr);
}

TEST_CASE("with the shipped bundle an H200 op is never slower than the same op on an H100", "[learned][physics]") {
  const auto bundle = LearnedBundle::load(std::string(PTP_SOURCE_DIR) + "/models/default");
  REQUIRE(bundle.compute);
  bundle.compute->attach_gpus(&catalogs().gpus());
  const std::string text =
      "model: llama3-8b\nprecision: bf16\nbatch_size: 1\nseq_len: 8192\ncluster: {gpu: h100-sxm5-80gb}\n";
  auto job_on = [&](const std::string& gpu) {
    auto spec = parse_job_spec(YamlReader::load_string(text, "job.yaml"));
    spec.cluster.gpu = gpu;
    return resolve_job(spec, catalogs());
  };
  const auto h100 = job_on("h100-sxm5-80gb"), h200 = job_on("h200-sxm-141gb");
  int compared = 0;
  for (std::size_t i = 0; i < h100.work().ops.size(); ++i) {
    for (bool backward : {false, true}) {
      LearnedMemo m1, m2;
      const auto& op = h100.work().ops[i];
      const auto a = bundle.compute->seconds(op, h100, backward, 1.0, m1);
      const auto b = bundle.compute->seconds(h200.work().ops[i], h200, backward, 1.0, m2);
      if (!a || !b) continue;
      INFO(op.name << (backward ? " backward" : " forward"));
      CHECK(*b <= *a * (1 + 1e-12));
      ++compared;
    }
  }
  CHECK(compared > 10);
}
