// Unpadded and packed sequences: GEMM work follows the real tokens, attention the real sequence or
// document lengths, memory the padded shapes.
#include <catch2/catch.hpp>

#include "llm/llm_test_support.hpp"

using namespace ptp::predict;
using namespace ptp::test;

namespace {
struct Work {
  double gemm = 0, attention = 0, saved = 0;
};
Work work(const Workload& w) {
  Work s;
  for (const auto& op : w.ops) {
    if (op.on_scores) s.attention += op.fwd_flops + op.bwd_flops;
    else if (op.kind == OpKind::gemm) s.gemm += op.fwd_flops + op.bwd_flops;
    s.saved += op.saved;
  }
  return s;
}
std::string bert(const std::string& extra) {
  return "model: bert-large\nprecision: amp_fp16\nbatch_size: 32\nseq_len: 512\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n" +
         extra;
}
}  // namespace

TEST_CASE("Unpadded sequences: GEMMs follow real tokens, attention their square, memory the padding", "[llm][sequences]") {
  const auto padded = resolve(bert("")), unpadded = resolve(bert("avg_seq_len: 128\n"));
  const Work a = work(padded.workload), b = work(unpadded.workload);
  CHECK(b.gemm / a.gemm == Approx(0.25));
  CHECK(b.attention / a.attention == Approx(0.0625));
  CHECK(b.saved == Approx(a.saved));
  const auto pa = predict_analytical(padded), pb = predict_analytical(unpadded);
  CHECK(pb.memory.activations == Approx(pa.memory.activations));
  CHECK(pb.breakdown.forward < 0.4 * pa.breakdown.forward);
  CHECK(pb.tokens_per_second == Approx(pb.samples_per_second * 128));  // real tokens
}

TEST_CASE("Packed documents with a document mask: every token works, attention stays in documents", "[llm][sequences]") {
  const std::string base = llm_job("llama3-8b", 8, "parallelism: {data: 8}\n", "bf16", "h100-sxm5-80gb", 8192);
  const auto causal = resolve(base + "packing: true\navg_seq_len: 1024\n");
  const auto docs = resolve(base + "packing: true\navg_seq_len: 1024\nattention_mask: document\n");
  const auto plain = resolve(base);
  const Work p = work(plain.workload), c = work(causal.workload), d = work(docs.workload);
  CHECK(c.gemm == Approx(p.gemm));  // packed under one causal mask: as if padded-free full sequences
  CHECK(c.attention == Approx(p.attention));
  CHECK(d.gemm == Approx(p.gemm));
  CHECK(d.attention / p.attention == Approx(1024.0 / 8192));
  CHECK(predict_analytical(docs).iteration_s < predict_analytical(plain).iteration_s);
}

TEST_CASE("Bad sequence layouts are one-line errors", "[llm][sequences]") {
  CHECK_THAT(error_of(bert("avg_seq_len: 600\n")), Catch::Matchers::Contains("avg_seq_len: is 600, more than seq_len 512"));
  CHECK_THAT(error_of(bert("attention_mask: document\n")), Catch::Matchers::Contains("needs packing: true"));
  CHECK_THAT(error_of(bert("packing: true\nattention_mask: document\n")), Catch::Matchers::Contains("needs avg_seq_len"));
  CHECK_THAT(error_of(bert("attention_mask: sliding\n")), Catch::Matchers::Contains("attention_mask: unknown value 'sliding'"));
  CHECK_THAT(error_of("model: resnet50\nprecision: amp_bf16\nbatch_size: 32\nseq_len: 8\navg_seq_len: 4\ncluster: {gpu: a100-sxm4-80gb}\n"),
             Catch::Matchers::Contains("modelled for transformer models"));
}
