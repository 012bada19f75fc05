// Hybrid Mamba-2 / attention / MoE stacks (Nemotron 3 Nano and Super): parameter counts, the Mamba-2
// mixer's ops and their tensor-parallel roles, LatentMoE and hybrid MTP, pipeline stages counted in
// hybrid layers, whole predictions against the published steps.
#include <algorithm>
#include <catch2/catch.hpp>

#include "llm_test_support.hpp"
#include "ptp/predict/learned/features.hpp"
#include "support/run_command.hpp"

using namespace ptp::predict;
using ptp::test::error_of;
using ptp::test::llm_job;
using ptp::test::op_named;
using ptp::test::predict;
using ptp::test::resolve;

namespace {
const std::string kPattern = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";
}  // namespace

TEST_CASE("Nemotron 3 Nano matches its published 31.6B parameters", "[llm][hybrid]") {
  const auto job = resolve(llm_job("nemotron-3-nano", 8, "parallelism: {expert: 8}\n", "bf16", "h100-sxm5-80gb", 8192));
  CHECK(job.workload.params() == Approx(31.6e9).epsilon(0.02));
  // Active weights per token: 3.2B without the embedding table (NVIDIA: "3.5B active" with it and
  // the LM head). Forward FLOPs per token without attention scores are about 2x that.
  double gemm = 0;
  for (const auto& op : job.workload.ops)
    if (op.kind == OpKind::gemm) gemm += op.fwd_flops;
  CHECK(gemm / 8192 / 2 == Approx(3.5e9).epsilon(0.1));
}

TEST_CASE("a Mamba-2 layer: in_proj column-, out_proj row-parallel, conv, scan and gated norm head-split",
          "[llm][hybrid]") {
  const auto job = resolve(llm_job("nemotron-3-nano", 8, "parallelism: {expert: 8}\n", "bf16", "h100-sxm5-80gb", 8192));
  const auto& ops = job.workload.ops;
  const double T = 8192, inner = 64 * 64, bc = 2 * 8 * 128;
  const Op& in = op_named(ops, "layer0.mamba_in_proj");
  CHECK(in.tp_role == TpRole::column);
  CHECK(in.n == 2 * inner + bc + 64);  // z, x, B, C, dt
  CHECK(in.k == 2688);
  const Op& out = op_named(ops, "layer0.mamba_out_proj");
  CHECK(out.tp_role == TpRole::row);
  CHECK(out.k == inner);
  const Op& conv = op_named(ops, "layer0.mamba_conv1d");
  CHECK(conv.tp_role == TpRole::split);
  CHECK(conv.params == (inner + bc) * 5);  // 4 taps + bias per channel
  const Op& ssd = op_named(ops, "layer0.mamba_ssd_scan");
  CHECK(ssd.tp_role == TpRole::split);
  CHECK_FALSE(ssd.on_scores);
  CHECK(ssd.fwd_flops == Approx(2 * T * (8 * 128 * 128 + 64 * 128 * 64 + 2 * 64 * 128 * 64)));
  CHECK(op_named(ops, "layer0.mamba_gated_norm").tp_role == TpRole::split);
  // Layer 1 is a MoE MLP, layer 5 attention without a MLP, no layer mixes the two.
  CHECK(op_named(ops, "layer1.expert_up").expert_split == ExpertSplit::n);
  CHECK(op_named(ops, "layer5.self_attn_flash").kind == OpKind::fused_attention);
  CHECK(std::none_of(ops.begin(), ops.end(), [](const Op& o) { return o.name == "layer5.mlp_norm"; }));

  // Under TP 2 each rank runs half of every head-split op and holds half of its weights.
  const auto tp2 = resolve(llm_job("nemotron-3-nano", 8, "parallelism: {tensor: 2, expert: 4}\n", "bf16",
                                   "h100-sxm5-80gb", 8192));
  const auto stages = partition_stages(tp2.workload, make_layout(tp2));
  const Op& in2 = op_named(stages[0].ops, "layer0.mamba_in_proj");
  CHECK(in2.n == in.n / 2);
  CHECK(op_named(stages[0].ops, "layer0.mamba_out_proj").k == inner / 2);
  CHECK(op_named(stages[0].ops, "layer0.mamba_conv1d").params == conv.params / 2);
  CHECK(op_named(stages[0].ops, "layer0.mamba_ssd_scan").fwd_flops == Approx(ssd.fwd_flops / 2));
  CHECK(op_named(stages[0].ops, "layer0.mamba_ssd_scan").traffic.bwd == Approx(ssd.traffic.bwd / 2));
}

TEST_CASE("the Mamba-2 scan moves its kernels' FP32 chunk states, not only its inputs and outputs", "[llm][hybrid]") {
  // Nano at 8192 tokens: x = 64 heads x 64 = 4096 per token, chunk states 4096 x 128 / 128 = 4096,
  // B or C 8 x 128 = 1024, C B^T 8 x 128 = 1024, dt 64 (mamba_ssm ssd_combined.py, kernel by kernel).
  const auto job = resolve(llm_job("nemotron-3-nano", 8, "parallelism: {expert: 8}\n", "bf16", "h100-sxm5-80gb", 8192));
  const Op& ssd = op_named(job.workload.ops, "layer0.mamba_ssd_scan");
  const double T = 8192, x = 4096, states = 4096, bc = 1024, cb = 1024, h = 64;
  CHECK(ssd.traffic.fwd == Approx(T * (5 * x + 4 * bc + 2 * states + h)));
  CHECK(ssd.traffic.fwd_fp32 == Approx(T * (6 * h + 2 * states + 2 * cb)));
  CHECK(ssd.traffic.bwd == Approx(T * (17 * x + 15 * bc + 8 * states + 2 * h)));
  CHECK(ssd.traffic.bwd_fp32 == Approx(T * (22 * h + 6 * cb + 2 * states)));
  // About 108 KB per token forward and 300 KB backward at BF16: several times the 26 KB of its
  // inputs and output, so the scan is memory-bound on an H100 (its ~10^11 FLOPs would take 0.1 ms).
  const double fwd_bytes = 2 * ssd.traffic.fwd + 4 * ssd.traffic.fwd_fp32;
  CHECK(fwd_bytes / T == Approx(108e3).epsilon(0.02));
  CHECK(fwd_bytes > 3 * 2 * (ssd.elements_in + ssd.elements_out));
  const OpTime t = analytical_op_time(ssd, job, AnalyticalConstants{});
  const double bandwidth = job.gpu->bandwidth_bytes_per_s();
  CHECK(t.forward_s > fwd_bytes / bandwidth);
  CHECK(t.backward_s > 2.5 * t.forward_s);
  // A longer sequence scales the traffic with the tokens (linear, unlike attention).
  const auto longer = resolve(llm_job("nemotron-3-nano", 8, "parallelism: {expert: 8}\n", "bf16", "h100-sxm5-80gb", 16384));
  CHECK(op_named(longer.workload.ops, "layer0.mamba_ssd_scan").traffic.fwd == Approx(2 * ssd.traffic.fwd));
}

TEST_CASE("pipeline stages count hybrid layers one letter each", "[llm][hybrid]") {
  const auto job = resolve(llm_job("nemotron-3-nano", 32, "parallelism: {pipeline: 4, expert: 8}\n", "bf16",
                                   "h100-sxm5-80gb", 8192));
  CHECK(count_blocks(job.workload) == 52);
  const auto stages = partition_stages(job.workload, make_layout(job));
  REQUIRE(stages.size() == 4);
  for (std::size_t s = 0; s < 4; ++s) {
    const std::string letters = kPattern.substr(13 * s, 13);
    INFO("stage " << s << ": " << letters);
    CHECK(stages[s].blocks == 13);
    CHECK(stages[s].moe_blocks == std::count(letters.begin(), letters.end(), 'E'));
  }
  // 52 layers split into neither 8 nor (52 + 2) / 8 equal chunks: unevenly, 7 layers on the first four
  // stages and 6 on the rest; 8 x 8 chunks cannot all hold a layer.
  const auto uneven = resolve(llm_job("nemotron-3-nano", 64, "parallelism: {pipeline: 8, expert: 8}\n"));
  const auto eight = partition_stages(uneven.workload, make_layout(uneven));
  REQUIRE(eight.size() == 8);
  for (std::size_t s = 0; s < 8; ++s) CHECK(eight[s].blocks == (s < 4 ? 7 : 6));
  CHECK_THAT(error_of(llm_job("nemotron-3-nano", 64, "parallelism: {pipeline: 8, virtual_pipeline: 8, expert: 8}\n")),
             Catch::Contains("52 layers"));
}

TEST_CASE("a Nemotron 3 Nano job predicts a plausible step", "[llm][hybrid]") {
  // Megatron-Bridge's published H100 FP8 rows for this layout (16 GPUs, EP 8, micro-batch 1 of 8192
  // tokens, 1024 sequences per step) measured 35.2 .. 36.6 s per step.
  const auto p = predict(llm_job("nemotron-3-nano", 16, "parallelism: {expert: 8}\nsharding: zero1\n", "fp8",
                                 "h100-sxm5-80gb", 8192, 1024));
  CHECK(p.iteration_s > 35.2 / 2.5);
  CHECK(p.iteration_s < 36.6 * 2.5);
  CHECK(p.breakdown.ep_communication > 0);
}

TEST_CASE("bad hybrid patterns are one-line errors naming the field", "[llm][hybrid]") {
  const std::string base = std::string(PTP_SOURCE_DIR) + "/configs/models/nemotron-3-nano.yaml";
  auto model_error = [&](const std::string& from, const std::string& to) {
    std::string text = ptp::test::slurp(base);
    text.replace(text.find(from), from.size(), to);
    const auto path = ptp::test::write_temp_file("bad-hybrid.yaml", text);
    return error_of(llm_job(path, 8, ""));
  };
  CHECK_THAT(model_error("MEMEM*", "MEMEX*"), Catch::Contains("params.hybrid_pattern") && Catch::Contains("M (Mamba-2)"));
  CHECK_THAT(model_error("layers: 52", "layers: 50"), Catch::Contains("52 letters for 50 layers"));
  CHECK_THAT(model_error("    groups: 8", "    groups: 7"), Catch::Contains("params.mamba.groups"));
}

TEST_CASE("a NemotronH config.json imports as the zoo's hybrid stack", "[llm][hybrid]") {
  // tests/data/hf/nemotron-3-nano-30b-a3b.json: the fields of HF
  // nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16's config.json this import reads.
  const std::string hf = std::string(PTP_SOURCE_DIR) + "/tests/data/hf/nemotron-3-nano-30b-a3b.json";
  const auto imported = resolve(llm_job(hf, 8, "parallelism: {expert: 8}\n", "bf16", "h100-sxm5-80gb", 8192));
  const auto zoo = resolve(llm_job("nemotron-3-nano", 8, "parallelism: {expert: 8}\n", "bf16", "h100-sxm5-80gb", 8192));
  CHECK(imported.workload.params() == Approx(zoo.workload.params()));
  CHECK(imported.workload.fwd_flops() == Approx(zoo.workload.fwd_flops()));
  CHECK(count_blocks(imported.workload) == 52);
  // An MTP module without its layer pattern is refused, naming the field.
  std::string text = ptp::test::slurp(hf);
  text.replace(text.find("\"vocab_size\""), 0, "\"num_nextn_predict_layers\": 1,\n  ");
  CHECK_THAT(error_of(llm_job(ptp::test::write_temp_file("mtp.json", text), 8, "")),
             Catch::Contains("mtp_pattern"));
}

TEST_CASE("the Mamba-2 scan is linear in the real tokens of unpadded and packed sequences", "[llm][hybrid]") {
  const std::string base = llm_job("nemotron-3-nano", 8, "parallelism: {expert: 8}\n", "bf16", "h100-sxm5-80gb", 8192);
  const Op padded = op_named(resolve(base).workload.ops, "layer0.mamba_ssd_scan");
  const Op unpadded = op_named(resolve(base + "avg_seq_len: 2048\n").workload.ops, "layer0.mamba_ssd_scan");
  const Op docs = op_named(resolve(base + "packing: true\navg_seq_len: 1024\nattention_mask: document\n").workload.ops,
                           "layer0.mamba_ssd_scan");
  CHECK(unpadded.fwd_flops == Approx(padded.fwd_flops / 4));  // not the 1/16 of attention scores
  CHECK(unpadded.batch == Approx(padded.batch / 4));           // a quarter of the 128-token chunks
  CHECK(unpadded.m == padded.m);
  CHECK(unpadded.traffic.fwd == Approx(padded.traffic.fwd / 4));  // its kernels' traffic too
  CHECK(unpadded.traffic.bwd_fp32 == Approx(padded.traffic.bwd_fp32 / 4));
  CHECK(docs.fwd_flops == Approx(padded.fwd_flops));  // packed: every token works
  CHECK(docs.traffic.fwd == Approx(padded.traffic.fwd));
  CHECK(docs.batch == Approx(padded.batch));
}

TEST_CASE("Nemotron 3 Super: 120B in the main stack, LatentMoE at width 1024, one hybrid MTP module",
          "[llm][hybrid]") {
  const auto job = resolve(llm_job("nemotron-3-super", 64, "parallelism: {expert: 64}\n", "bf16", "gb300", 8192));
  double main = 0, mtp = 0;
  for (const auto& op : job.workload.ops) (op.name.rfind("mtp", 0) == 0 ? mtp : main) += op.params;
  CHECK(main == Approx(120e9).epsilon(0.02));  // NVIDIA's "120B total", as DeepSeek-V3's 671B without MTP
  CHECK(mtp == Approx(2.94e9).epsilon(0.05));  // eh_proj + one attention + one LatentMoE layer
  CHECK(count_blocks(job.workload) == 89);     // 88 hybrid layers + the MTP module
  const auto& ops = job.workload.ops;
  const double T = 8192;
  CHECK(op_named(ops, "layer1.moe_router").k == 4096);  // routes on the full hidden state
  CHECK(op_named(ops, "layer1.moe_latent_down").n == 1024);
  CHECK(op_named(ops, "layer1.expert_up").k == 1024);
  CHECK(op_named(ops, "layer1.expert_down").n == 1024);
  CHECK(op_named(ops, "layer1.expert_dispatch").elements_out == T * 22 * 1024);
  CHECK(op_named(ops, "layer1.shared_up").k == 4096);  // the shared expert stays at hidden
  CHECK(op_named(ops, "mtp0.self_attn_flash").kind == OpKind::fused_attention);
  CHECK(op_named(ops, "mtp0.expert_up").expert_split == ExpertSplit::n);
  // The all-to-all carries the latent, not the hidden state.
  CHECK(make_layout(job).expert_width == 1024);
  CHECK(make_layout(resolve(llm_job("nemotron-3-nano", 8, "parallelism: {expert: 8}\n"))).expert_width == 2688);
}

TEST_CASE("a hybrid layer is one tensor-parallel sub-layer, a transformer block two", "[llm][hybrid]") {
  const auto nano = resolve(llm_job("nemotron-3-nano", 8, "parallelism: {tensor: 2, expert: 4}\n"));
  const auto llama = resolve(llm_job("llama3-8b", 8, "parallelism: {tensor: 2}\n"));
  const auto n = partition_stages(nano.workload, make_layout(nano));
  const auto l = partition_stages(llama.workload, make_layout(llama));
  CHECK(n[0].tp_sublayers == 52);      // one reduction per Mamba-2, attention or MoE layer
  CHECK(l[0].tp_sublayers == 2 * 32);  // attention and MLP per block, as before
}

TEST_CASE("a Nemotron 3 Super job predicts a plausible step", "[llm][hybrid]") {
  // Megatron-Bridge's published GB300 FP8 rows for this layout (64 GPUs, EP 64, micro-batch 1 of
  // 8192 tokens, 512 sequences per step) measured 6.6 .. 7.1 s per step.
  const auto p = predict(llm_job("nemotron-3-super", 64, "parallelism: {expert: 64}\n", "fp8", "gb300", 8192, 512));
  CHECK(p.iteration_s > 6.6 / 2.5);
  CHECK(p.iteration_s < 7.1 * 2.5);
  CHECK(p.breakdown.ep_communication > 0);
}

TEST_CASE("tensor parallelism must divide the Mamba-2 groups", "[llm][hybrid]") {
  // 32 attention heads divide over 16 ranks, the 8 SSM groups do not.
  CHECK_THAT(error_of(llm_job("nemotron-3-nano", 16, "parallelism: {tensor: 16}\n")),
             Catch::Contains("parallelism.tensor") && Catch::Contains("8 Mamba-2 groups"));
}

TEST_CASE("the aggregator sees a hybrid stack's state-space scan share; a dense model has none", "[llm][hybrid]") {
  const auto& names = run_feature_names(false);
  const auto at = std::find(names.begin(), names.end(), "ssm_scan_flop_fraction");
  REQUIRE(at != names.end());
  const auto column = static_cast<std::size_t>(at - names.begin());
  auto scan_share = [&](const std::string& yaml) {
    const auto job = resolve(yaml);
    const auto p = predict_analytical(job);
    return run_features(job, p, false, p)[column];
  };
  const float nano = scan_share(llm_job("nemotron-3-nano", 8, "parallelism: {expert: 8}\n", "bf16", "h100-sxm5-80gb", 8192));
  CHECK(nano > 0);
  CHECK(nano < 0.2);  // the scan is a small share of the FLOPs next to the projections and experts
  CHECK(scan_share(llm_job("llama3-8b", 8, "")) == 0);
}
