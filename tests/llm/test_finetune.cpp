// LoRA fine-tuning on a frozen base: the physics (matmul work, gradient traffic, memory) under data,
// tensor, pipeline and expert parallelism and ZeRO/FSDP, and the refusals of bad finetune specs.
#include <catch2/catch.hpp>

#include "ptp/predict/workload_transforms.hpp"
#include "llm/llm_test_support.hpp"

using namespace ptp::predict;
using namespace ptp::test;

namespace {
std::string lora(int rank, const std::string& targets = "[attention, mlp]") {
  return "finetune: {method: lora, rank: " + std::to_string(rank) + ", targets: " + targets + "}\n";
}
double weight_gemm_flops(const Workload& w) {
  double f = 0;
  for (const auto& op : w.ops)
    if (op.kind == OpKind::gemm) f += op.fwd_flops + op.bwd_flops;
  return f;
}
double trainable(const Workload& w) {
  double p = 0;
  for (const auto& op : w.ops)
    if (!op.frozen) p += op.params;
  return p;
}
}  // namespace

TEST_CASE("LoRA at rank << d does about 2/3 of full training's matmul work", "[llm][lora]") {
  const auto full = resolve(llm_job("llama3-8b", 1, ""));
  const auto adapted = resolve(llm_job("llama3-8b", 1, lora(16)));
  // Frozen weights keep forward + data gradient (2 of 3 GEMMs); the adapters add r (k + n) / (k n).
  const double ratio = weight_gemm_flops(adapted.workload) / weight_gemm_flops(full.workload);
  CHECK(ratio > 2.0 / 3.0);
  CHECK(ratio < 2.0 / 3.0 + 0.01);
  // PEFT's count for Llama-3-8B, r = 16 on q,k,v,o,gate,up,down: 41,943,040 trainable parameters.
  CHECK(trainable(adapted.workload) == 41943040);
  CHECK(adapted.workload.params() == Approx(full.workload.params() + 41943040));
  // Attention-only adapters: q, k, v, o.
  const auto attn = resolve(llm_job("llama3-8b", 1, lora(16, "[attention]")));
  CHECK(trainable(attn.workload) == 32 * 16 * (8192 + 5120 + 5120 + 8192));
  // NeMo 1.x's default: q, k, v only (its fused linear_qkv), not the output projection.
  const auto qkv = resolve(llm_job("llama3-8b", 1, lora(16, "[attention_qkv]")));
  CHECK(trainable(qkv.workload) == 32 * 16 * (8192 + 5120 + 5120));
  // The step is faster, and MFU counts the 2/3.
  const auto pf = predict_analytical(full), pl = predict_analytical(adapted);
  CHECK(pl.iteration_s < 0.8 * pf.iteration_s);
  CHECK(pl.breakdown.backward < 0.8 * pf.breakdown.backward);  // attention's backward is unchanged
}

TEST_CASE("LoRA adapters run at 16 bits under an FP8 recipe, with no FP8 casts", "[llm][lora]") {
  // Megatron-Bridge/NeMo build adapters from megatron.core linears, outside Transformer Engine's FP8.
  const auto fp8 = resolve(llm_job("llama3-8b", 8, lora(16), "fp8"));
  CHECK(op_math_mode(op_named(fp8.workload.ops, "layer0.self_attn_qkv"), fp8) == "fp8");
  CHECK(op_math_mode(op_named(fp8.workload.ops, "layer0.self_attn_qkv.lora_a"), fp8) == "bf16");
  CHECK(op_math_mode(op_named(fp8.workload.ops, "layer0.mlp_down.lora_b"), fp8) == "bf16");
  // The FP8 casting passes are the base GEMMs' alone: adapters add none.
  const auto full = resolve(llm_job("llama3-8b", 8, "", "fp8"));
  const Layout lf = make_layout(full), la = make_layout(fp8);
  const AnalyticalConstants k;
  const ParallelConstants pk;
  const auto sf = stage_time(partition_stages(full.workload, lf).front(), full, lf, k, pk, false);
  const auto sa = stage_time(partition_stages(fp8.workload, la).front(), fp8, la, k, pk, false);
  CHECK(sa.casts == Approx(sf.casts));
}

TEST_CASE("LoRA memory drops by the frozen weights' gradients, optimizer state and master copy", "[llm][lora]") {
  const std::string layout = "parallelism: {data: 8}\n";
  const auto pf = predict(llm_job("llama3-8b", 8, layout));
  const auto pl = predict(llm_job("llama3-8b", 8, layout + lora(16)));
  const double adapters = 41943040, all = resolve(llm_job("llama3-8b", 8, layout + lora(16))).workload.params();
  // bf16 policy, Megatron convention: 2-byte weights, FP32 gradients, FP32 master copy + two FP32 Adam states.
  CHECK(pl.memory.weights == Approx(all * 2));
  CHECK(pl.memory.gradients == Approx(adapters * 4));
  CHECK(pl.memory.optimizer_state == Approx(adapters * 2 * 4));
  CHECK(pl.memory.master_weights == Approx(adapters * 4));
  auto state = [](const MemoryEstimate& m) { return m.gradients + m.optimizer_state + m.master_weights; };
  CHECK(pf.memory.allocated_bytes - pl.memory.allocated_bytes > 0.95 * (state(pf.memory) - state(pl.memory)));
}

TEST_CASE("LoRA data-parallel traffic scales with the adapter parameters", "[llm][lora]") {
  const std::string layout = "parallelism: {data: 16}\n";
  const auto pf = predict(llm_job("llama3-8b", 16, layout));
  const auto r16 = predict(llm_job("llama3-8b", 16, layout + lora(16)));
  const auto r64 = predict(llm_job("llama3-8b", 16, layout + lora(64)));
  const double full_params = resolve(llm_job("llama3-8b", 16, layout)).workload.params();
  // Bucketed all-reduce: the time follows the bytes (plus one latency per 25 MB bucket).
  CHECK(r16.breakdown.communication / pf.breakdown.communication < 3 * 41943040 / full_params);
  CHECK(r64.breakdown.communication / r16.breakdown.communication == Approx(4).epsilon(0.35));
  // ZeRO-1/2: only adapters are reduce-scattered and gathered. FSDP still gathers the frozen base.
  const auto z1f = predict(llm_job("llama3-8b", 16, layout + "sharding: zero1\n"));
  const auto z1l = predict(llm_job("llama3-8b", 16, layout + "sharding: zero1\n" + lora(16)));
  CHECK(z1l.breakdown.communication < 0.05 * z1f.breakdown.communication);
  const auto fsf = predict(llm_job("llama3-8b", 16, layout + "sharding: fsdp\n"));
  const auto fsl = predict(llm_job("llama3-8b", 16, layout + "sharding: fsdp\n" + lora(16)));
  CHECK(fsl.breakdown.communication < fsf.breakdown.communication);
  CHECK(fsl.breakdown.communication > 0.5 * fsf.breakdown.communication);  // 2 gathers of 3 collectives stay
  CHECK(fsl.memory.weights < fsf.memory.weights * 1.01);
}

TEST_CASE("LoRA under tensor, pipeline and expert parallelism shards the adapters with their bases", "[llm][lora]") {
  const std::string layout = "parallelism: {tensor: 8, pipeline: 2}\nsequence_parallel: true\n";
  const auto full = resolve(llm_job("llama3-70b", 64, layout, "bf16", "h100-sxm5-80gb", 4096, 256));
  const auto adapted = resolve(llm_job("llama3-70b", 64, layout + lora(16), "bf16", "h100-sxm5-80gb", 4096, 256));
  const Layout l = make_layout(adapted);
  const auto stages = partition_stages(adapted.workload, l);
  double stage_trainable = 0, whole = trainable(adapted.workload);
  for (const auto& s : stages) stage_trainable += s.params;
  // Per GPU: B of column-parallel bases and A of row-parallel bases split 8 ways, the rest replicated.
  CHECK(stage_trainable < whole / 2);
  CHECK(stage_trainable > whole / 16);
  const auto pf = predict_analytical(full), pl = predict_analytical(adapted);
  CHECK(pl.iteration_s < pf.iteration_s);
  CHECK(pl.memory.per_gpu_bytes < pf.memory.per_gpu_bytes);
  CHECK(pl.breakdown.tp_communication == Approx(pf.breakdown.tp_communication));  // adapters add no collective

  // Mixtral: one adapter pair per expert on gate/up/down, split over EP ranks with the experts.
  const auto moe = resolve(llm_job(std::string(PTP_SOURCE_DIR) + "/tests/data/hf/mixtral-8x7b.json", 8, "parallelism: {expert: 8}\n" + lora(16, "[mlp]")));
  CHECK(trainable(moe.workload) == 32 * 8 * 3 * 16 * (4096 + 14336));
  const auto moe_stage = partition_stages(moe.workload, make_layout(moe));
  CHECK(moe_stage[0].params == Approx(32 * 3 * 16 * (4096 + 14336)));
}

TEST_CASE("Bad finetune specs are one-line errors naming the field", "[llm][lora]") {
  auto refused = [](const std::string& yaml, const std::string& what) {
    INFO(yaml);
    const std::string e = error_of(yaml);
    CHECK_THAT(e, Catch::Matchers::Contains(what));
    CHECK(e.find('\n') == std::string::npos);
  };
  refused(llm_job("llama3-8b", 1, "finetune: {method: lora, rank: 0}\n"), "finetune.rank: value 0 out of range");
  refused(llm_job("llama3-8b", 1, "finetune: {method: lora, rank: -4}\n"), "finetune.rank");
  refused(llm_job("llama3-8b", 1, "finetune: {method: lora}\n"), "needs rank");
  refused(llm_job("llama3-8b", 1, "finetune: {method: lora, rank: 2048}\n"), "finetune.rank: 2048 exceeds the smallest adapted projection of 'llama3-8b' (4096 x 1024)");
  refused(llm_job("llama3-8b", 1, "finetune: {method: lora, rank: 8, targets: [attn]}\n"), "unknown target 'attn'");
  refused(llm_job("llama3-8b", 1, "finetune: {method: lora, rank: 8, targets: []}\n"), "non-empty list");
  refused(llm_job("llama3-8b", 1, "finetune: {method: full, rank: 8}\n"), "finetune.rank: applies to method: lora or qlora only");
  refused(llm_job("llama3-8b", 1, "finetune: {method: dora, rank: 8}\n"), "finetune.method: unknown value 'dora'");
  refused(llm_job("llama3-8b", 1, "finetune: {method: lora, rank: 8, double_quant: true}\n"),
          "finetune.double_quant: applies to method: qlora only");
  refused(llm_job("llama3-8b", 1, "finetune: {method: full, double_quant: true}\n"), "finetune.double_quant: applies to method");
  refused("model: resnet50\nprecision: amp_bf16\nbatch_size: 32\ncluster: {gpu: a100-sxm4-80gb}\n" + lora(8),
          "finetune.targets: model 'resnet50' has no attention or MLP projections");
  refused("model: resnet50\nprecision: amp_bf16\nbatch_size: 32\ncluster: {gpu: a100-sxm4-80gb}\n" + lora(8, "[attention_qkv]"),
          "finetune.targets: model 'resnet50' has no attention projections");
}

TEST_CASE("A LoRA job spec writes back what it read", "[llm][lora]") {
  const auto j = parse_job_spec(YamlReader::load_string(llm_job("llama3-8b", 1, lora(32, "[all]")), "job.yaml"));
  const std::string y = job_spec_to_yaml(j);
  CHECK_THAT(y, Catch::Matchers::Contains("method: lora") && Catch::Matchers::Contains("rank: 32") &&
                    Catch::Matchers::Contains("targets: [all]"));
  const auto again = parse_job_spec(YamlReader::load_string(y, "again.yaml"));
  CHECK(again.finetune.rank == 32);
  CHECK(again.finetune.targets == std::vector<LoraTarget>{LoraTarget::all});
}


TEST_CASE("QLoRA stores the frozen block projections in 4-bit NormalFloat, the embedding and head at BF16", "[llm][lora][memory]") {
  const std::string qlora = "finetune: {method: qlora, rank: 16}\n";
  const auto pl = predict(llm_job("llama3-8b", 1, lora(16)));
  const auto pq = predict(llm_job("llama3-8b", 1, qlora));
  const auto pdq = predict(llm_job("llama3-8b", 1, "finetune: {method: qlora, rank: 16, double_quant: true}\n"));
  // Llama 3 8B's block projections: q, o (4096 x 4096), k, v (4096 x 1024), gate, up, down (4096 x 14336).
  const double linear = 32.0 * (4096.0 * (4096 + 1024 + 1024 + 4096) + 3.0 * 4096 * 14336);
  CHECK(pl.memory.weights - pq.memory.weights == Approx(linear * (2 - 4.5 / 8)));
  CHECK(pq.memory.weights - pdq.memory.weights == Approx(linear * (4.5 - 4.127) / 8).epsilon(0.01));
  // The adapters train exactly as under LoRA; the compute is unchanged (dequantisation is not modelled).
  CHECK(pq.memory.gradients == Approx(pl.memory.gradients));
  CHECK(pq.memory.optimizer_state == Approx(pl.memory.optimizer_state));
  // A QLoRA job spec writes back what it read.
  const auto j = parse_job_spec(YamlReader::load_string(llm_job("llama3-8b", 1, "finetune: {method: qlora, rank: 16, double_quant: true}\n"), "job.yaml"));
  const auto again = parse_job_spec(YamlReader::load_string(job_spec_to_yaml(j), "again.yaml"));
  CHECK(again.finetune.method == FinetuneMethod::qlora);
  CHECK(again.finetune.double_quant);
}

TEST_CASE("QLoRA on bitsandbytes before 0.43.2 stashes the inputs of the projections without adapters",
          "[llm][lora][memory]") {
  auto job = [](const std::string& targets, bool keeps) {
    return predict(llm_job("llama3-8b", 1,
                           "finetune: {method: qlora, rank: 16, targets: " + targets +
                               (keeps ? ", quantized_keeps_inputs: true" : "") + "}\n"));
  };
  const auto fixed = job("[attention]", false), keeps = job("[attention]", true);
  // Per token and block: the inputs of gate+up (4096, one fused input) and down (14336), BF16. q, k,
  // v's input is the adapters' and o's the attention kernel's output, both stashed once already.
  CHECK(keeps.memory.activations - fixed.memory.activations == Approx(32.0 * 4096 * (4096 + 14336) * 2));
  CHECK(keeps.breakdown.forward == Approx(fixed.breakdown.forward));
  CHECK(keeps.breakdown.backward == Approx(fixed.breakdown.backward));
  // Adapters on every projection stash every input already.
  CHECK(job("[all]", true).memory.activations == Approx(job("[all]", false).memory.activations));
  CHECK_THAT(error_of(llm_job("llama3-8b", 1, "finetune: {method: lora, rank: 8, quantized_keeps_inputs: true}\n")),
             Catch::Matchers::Contains("finetune.quantized_keeps_inputs: applies to method: qlora only"));
  const auto j = parse_job_spec(YamlReader::load_string(
      llm_job("llama3-8b", 1, "finetune: {method: qlora, rank: 16, quantized_keeps_inputs: true}\n"), "job.yaml"));
  CHECK(parse_job_spec(YamlReader::load_string(job_spec_to_yaml(j), "again.yaml")).finetune.quantized_keeps_inputs);
}

TEST_CASE("QLoRA dequantises its largest 4-bit weight whole; litgpt's quantises the head through FP16 too",
          "[llm][lora][memory]") {
  auto job = [](const std::string& extra) {
    return predict(llm_job("llama3-8b", 1, "finetune: {method: qlora, rank: 16, targets: [attention]" + extra + "}\n"));
  };
  const auto lora = predict(llm_job("llama3-8b", 1, "finetune: {method: lora, rank: 16, targets: [attention]}\n"));
  const auto peft = job(""), head = job(", quantized_head: true"), litgpt = job(", quantized_head: true, quantized_from_fp16: true");
  const double h = 4096, ffn = 14336, vocab = 128256;
  // A LoRA base in 16 bits dequantises nothing. The largest 4-bit weight of the blocks is one MLP
  // projection (gate, up and down are separate nn.Linear modules), dequantised to BF16.
  CHECK(peft.memory.workspace - lora.memory.workspace == Approx(ffn * h * 2));
  // The head in 4 bits: its weight shrinks from BF16 to NF4, and it becomes the largest dequantised copy.
  const double nf4 = quantized_base_bytes(BaseQuantization::nf4);
  CHECK(peft.memory.weights - head.memory.weights == Approx(vocab * h * (2 - nf4)));
  CHECK(head.memory.workspace - lora.memory.workspace == Approx(vocab * h * 2));
  // Quantised from an FP16 copy: dequantised to FP16, then cast to BF16 while the FP16 copy is live.
  CHECK(litgpt.memory.workspace - lora.memory.workspace == Approx(vocab * h * 4));
  // Under FP16 compute the cast is a no-op.
  const auto fp16 = predict(llm_job("llama3-8b", 1,
                                    "finetune: {method: qlora, rank: 16, targets: [attention], "
                                    "quantized_head: true, quantized_from_fp16: true}\n",
                                    "fp16"));
  const auto fp16_lora =
      predict(llm_job("llama3-8b", 1, "finetune: {method: lora, rank: 16, targets: [attention]}\n", "fp16"));
  CHECK(fp16.memory.workspace - fp16_lora.memory.workspace == Approx(vocab * h * 2));
  // Memory only: the step's compute does not move.
  CHECK(litgpt.breakdown.forward == Approx(peft.breakdown.forward));
  CHECK(litgpt.breakdown.backward == Approx(peft.breakdown.backward));
  // The keys apply to qlora only and are written back.
  CHECK_THAT(error_of(llm_job("llama3-8b", 1, "finetune: {method: lora, rank: 8, quantized_head: true}\n")),
             Catch::Matchers::Contains("finetune.quantized_head: applies to method: qlora only"));
  CHECK_THAT(error_of(llm_job("llama3-8b", 1, "finetune: {method: full, quantized_from_fp16: true}\n")),
             Catch::Matchers::Contains("finetune.quantized_from_fp16: applies to method: lora or qlora only"));
  const auto j = parse_job_spec(YamlReader::load_string(
      llm_job("llama3-8b", 1, "finetune: {method: qlora, rank: 16, quantized_head: true, quantized_from_fp16: true}\n"),
      "job.yaml"));
  const auto again = parse_job_spec(YamlReader::load_string(job_spec_to_yaml(j), "again.yaml"));
  CHECK(again.finetune.quantized_head);
  CHECK(again.finetune.quantized_from_fp16);
}

TEST_CASE("LoRA dropout keeps each adapter module's dropped input and its mask", "[llm][lora][memory]") {
  auto job = [](const std::string& extra, const std::string& method = "lora") {
    return predict(llm_job("llama3-8b", 1, "finetune: {method: " + method + ", rank: 16, targets: [all]" + extra + "}\n"));
  };
  const double T = 4096, h = 4096, q = 4096, ffn = 14336, layers = 32;
  const auto plain = job(""), litgpt = job(", dropout: 0.05, adapter_modules: fused_qkv");
  const auto peft = job(", dropout: 0.05"), megatron = job(", dropout: 0.1, adapter_modules: fused");
  // litgpt: one dropout for q, k, v (a mask of the block input), one for o (a dropped BF16 copy of the
  // attention output and its mask, where without dropout the adapter reads the attention kernel's
  // output, kept once), fc_1 and fc_2 apart (two dropped BF16 copies of the block input and two masks
  // where the shared input was kept once), one for down (a mask of the ffn-wide input). Masks are one byte.
  CHECK(litgpt.memory.activations - plain.memory.activations == Approx(layers * T * (h + 3 * q + 4 * h + ffn)));
  // PEFT and torchtune wrap q, k and v apart: two more dropped copies and masks of the block input.
  CHECK(peft.memory.activations - litgpt.memory.activations == Approx(layers * T * 2 * h * 3));
  // Megatron-Bridge's fused linear_fc1 adapter: one dropout for gate and up.
  CHECK(litgpt.memory.activations - megatron.memory.activations == Approx(layers * T * h * 3));
  // The probability does not matter to memory, nor does dropout to the step's compute.
  CHECK(job(", dropout: 0.3").memory.activations == Approx(peft.memory.activations));
  CHECK(peft.breakdown.forward == Approx(plain.breakdown.forward));
  CHECK(peft.memory.weights == Approx(plain.memory.weights));
  // bitsandbytes before 0.43.2 keeps each adapted 4-bit projection's input as well: with dropout that
  // is not the adapter's copy. One BF16 input per fused projection: block input (q, k, v), block input
  // (gate, up), ffn-wide (down); o's input is the attention kernel's output, which it keeps anyway.
  const std::string keeps = ", quantized_keeps_inputs: true";
  const auto q_drop = job(", dropout: 0.05, adapter_modules: fused_qkv" + keeps, "qlora");
  const auto q_nodrop = job(keeps, "qlora");
  const auto q_drop_fixed = job(", dropout: 0.05, adapter_modules: fused_qkv", "qlora");
  CHECK(q_drop.memory.activations - q_drop_fixed.memory.activations == Approx(layers * T * 2 * (h + h + ffn)));
  CHECK(q_drop_fixed.memory.activations - q_nodrop.memory.activations ==
        Approx(litgpt.memory.activations - plain.memory.activations));
  // Tensor parallelism splits the masks with the adapter inputs they belong to.
  const auto tp = predict(llm_job("llama3-8b", 2, "parallelism: {tensor: 2}\nsequence_parallel: true\n"
                                              "finetune: {method: lora, rank: 16, targets: [all], dropout: 0.05}\n"));
  const auto tp_plain = predict(llm_job("llama3-8b", 2, "parallelism: {tensor: 2}\nsequence_parallel: true\n"
                                                    "finetune: {method: lora, rank: 16, targets: [all]}\n"));
  CHECK(tp.memory.activations - tp_plain.memory.activations <
        0.75 * (peft.memory.activations - plain.memory.activations));
  CHECK(tp.memory.activations > tp_plain.memory.activations);
  // A job spec writes back what it read; bad values are one-line errors naming the field.
  const auto j = parse_job_spec(YamlReader::load_string(
      llm_job("llama3-8b", 1, "finetune: {method: lora, rank: 8, dropout: 0.05, adapter_modules: fused}\n"), "job.yaml"));
  const auto again = parse_job_spec(YamlReader::load_string(job_spec_to_yaml(j), "again.yaml"));
  CHECK(again.finetune.dropout == Approx(0.05));
  CHECK(again.finetune.adapter_modules == AdapterModules::fused);
  CHECK_THAT(error_of(llm_job("llama3-8b", 1, "finetune: {method: lora, rank: 8, dropout: 1}\n")),
             Catch::Matchers::Contains("finetune.dropout: is a probability below 1"));
  CHECK_THAT(error_of(llm_job("llama3-8b", 1, "finetune: {method: lora, rank: 8, dropout: -0.1}\n")),
             Catch::Matchers::Contains("finetune.dropout"));
  CHECK_THAT(error_of(llm_job("llama3-8b", 1, "finetune: {method: lora, rank: 8, adapter_modules: qkv}\n")),
             Catch::Matchers::Contains("finetune.adapter_modules: unknown value 'qkv'"));
  CHECK_THAT(error_of(llm_job("llama3-8b", 1, "finetune: {method: full, dropout: 0.1}\n")),
             Catch::Matchers::Contains("finetune.dropout: applies to method: lora or qlora only"));
}

// Issue 30, item 2a: the words of mfu_basis must describe the number (LoRA's frozen GEMMs count 2 passes).
TEST_CASE("LoRA's model-FLOPs basis says how the frozen base is counted", "[llm][lora][issue30]") {
  const auto full = predict(llm_job("llama3-8b", 8, ""));
  const auto adapted = predict(llm_job("llama3-8b", 8, lora(16)));
  CHECK_THAT(full.model_flops_basis, Catch::Contains("6 x matmul params"));
  CHECK_THAT(adapted.model_flops_basis, Catch::Contains("4 x base matmul params") && !Catch::Contains("6 x matmul params"));
  // The number follows the words: about 4/6 of full training's, plus attention (counted whole in both).
  const double ratio = adapted.model_flops_per_step / full.model_flops_per_step;
  CHECK(ratio > 4.0 / 6);
  CHECK(ratio < 0.8);
  CHECK(predict(llm_job("llama3-8b", 8, "finetune: {method: qlora, rank: 16}\n")).model_flops_basis ==
        adapted.model_flops_basis);
}
