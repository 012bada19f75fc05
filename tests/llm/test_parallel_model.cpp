// The parallel step model end to end: how ops shard over TP ranks, how blocks fall on pipeline
// stages, what each sharding / recomputation / pipeline choice does to memory per GPU, and how the
// breakdown composes into the iteration.
#include <catch2/catch.hpp>

#include "llm_test_support.hpp"
#include "ptp/predict/predict_session.hpp"
#include "ptp/vocab/csv.hpp"
#include "support/run_command.hpp"

using namespace ptp::predict;
using ptp::test::llm_job;
using ptp::test::predict;
using ptp::test::resolve;

namespace {
double sum_params(const std::vector<Stage>& stages) {
  double s = 0;
  for (const auto& st : stages) s += st.params;
  return s;
}
double sum_fwd_flops(const std::vector<Stage>& stages) {
  double s = 0;
  for (const auto& st : stages)
    for (const auto& op : st.ops) s += op.fwd_flops;
  return s;
}
}  // namespace

TEST_CASE("the transformer family gives every op its Megatron parallel role", "[llm][shard]") {
  const auto job = resolve(llm_job("llama3-8b", 1, ""));
  std::map<std::string, std::string> roles;
  for (const auto& op : job.workload.ops) {
    const auto dot = op.name.rfind('.');
    roles[dot == std::string::npos ? op.name : op.name.substr(dot + 1)] = tp_role_name(op.tp_role);
  }
  CHECK(roles["self_attn_qkv"] == "column");
  CHECK(roles["mlp_up"] == "column");
  CHECK(roles["lm_head"] == "column");
  CHECK(roles["self_attn_out"] == "row");
  CHECK(roles["mlp_down"] == "row");
  CHECK(roles["self_attn_flash"] == "split");
  CHECK(roles["self_attn_rope"] == "split");
  CHECK(roles["mlp_act"] == "split");
  CHECK(roles["embed_tokens"] == "vocab");
  CHECK(roles["lm_loss"] == "vocab");
  CHECK(roles["self_attn_norm"] == "replicated");
  CHECK(roles["mlp_residual"] == "replicated");
}

TEST_CASE("the MoE family marks its experts' ops with the dimension expert parallelism splits", "[llm][shard]") {
  const auto job = resolve(llm_job("qwen3-30b-a3b", 8, "parallelism: {expert: 8}\n"));
  std::map<std::string, std::string> split;
  for (const auto& op : job.workload.ops) {
    const auto dot = op.name.rfind('.');
    split[dot == std::string::npos ? op.name : op.name.substr(dot + 1)] = expert_split_name(op.expert_split);
  }
  CHECK(split["expert_up"] == "n");
  CHECK(split["expert_down"] == "k");
  CHECK(split["expert_act"] == "routed");
  CHECK(split["expert_dispatch"] == "routed");
  CHECK(split["moe_router"] == "none");
  CHECK(split["self_attn_qkv"] == "none");
}

TEST_CASE("TP splits weights and FLOPs; with sequence parallel every op's work is split", "[llm][shard]") {
  const auto job = resolve(llm_job("llama3-8b", 4, "parallelism: {tensor: 4}\nsequence_parallel: true\n"));
  const double params = job.workload.params(), fwd = job.workload.fwd_flops();
  const auto stages = partition_stages(job.workload, make_layout(job));
  REQUIRE(stages.size() == 1);
  // Norm weights stay replicated: a few hundred thousand of 8 billion.
  CHECK(sum_params(stages) * 4 == Approx(params).epsilon(1e-3));
  CHECK(sum_params(stages) * 4 > params);
  CHECK(sum_fwd_flops(stages) * 4 == Approx(fwd).epsilon(1e-9));
  // Without SP the norms, residuals and dropout run on every TP rank in full.
  const auto no_sp = resolve(llm_job("llama3-8b", 4, "parallelism: {tensor: 4}\n"));
  CHECK(sum_fwd_flops(partition_stages(no_sp.workload, make_layout(no_sp))) * 4 > fwd);
}

TEST_CASE("context parallel divides the per-rank work, not the weights", "[llm][shard]") {
  const auto job = resolve(llm_job("llama3-8b", 2, "parallelism: {context: 2}\n", "bf16", "h100-sxm5-80gb", 8192));
  const auto stages = partition_stages(job.workload, make_layout(job));
  CHECK(sum_params(stages) == Approx(job.workload.params()));
  CHECK(sum_fwd_flops(stages) * 2 == Approx(job.workload.fwd_flops()));
}

TEST_CASE("pipeline stages take equal blocks; embedding on the first, loss on the last", "[llm][pipeline]") {
  const auto job = resolve(llm_job("llama3-70b", 4, "parallelism: {pipeline: 4}\n"));
  const auto stages = partition_stages(job.workload, make_layout(job));
  REQUIRE(stages.size() == 4);
  for (const auto& s : stages) CHECK(s.blocks == 20);
  auto has = [](const Stage& s, OpKind k) {
    return std::any_of(s.ops.begin(), s.ops.end(), [k](const Op& o) { return o.kind == k; });
  };
  CHECK(has(stages[0], OpKind::embedding));
  CHECK_FALSE(has(stages[1], OpKind::embedding));
  CHECK(has(stages[3], OpKind::loss));
  CHECK_FALSE(has(stages[0], OpKind::loss));
  CHECK(sum_params(stages) == Approx(job.workload.params()));
}

TEST_CASE("126 blocks over 8 x 8 chunks: the first and last chunk carry one block fewer", "[llm][pipeline]") {
  CHECK(pipeline_split(126, 8, 8).embedding_as_layer);
  CHECK_FALSE(pipeline_split(80, 4, 5).embedding_as_layer);
  CHECK_FALSE(pipeline_split(80, 3, 1).divisible);
  CHECK_FALSE(pipeline_split(126, 8, 8).uneven);
  const auto job = resolve(llm_job("llama3.1-405b", 64, "parallelism: {pipeline: 8, virtual_pipeline: 8}\n"));
  const auto stages = partition_stages(job.workload, make_layout(job));
  CHECK(stages[0].blocks == 15);
  CHECK(stages[7].blocks == 15);
  for (int s = 1; s < 7; ++s) CHECK(stages[static_cast<std::size_t>(s)].blocks == 16);
}

TEST_CASE("layers that divide neither way split unevenly, heavier chunks first, and an empty chunk is refused",
          "[llm][pipeline]") {
  const auto three = pipeline_split(80, 3, 1);
  CHECK(three.uneven);
  CHECK(three.fits());
  // 80 = 27 + 27 + 26
  CHECK(three.chunk_of_block(26, 3) == 0);
  CHECK(three.chunk_of_block(27, 3) == 1);
  CHECK(three.chunk_of_block(54, 3) == 2);
  CHECK(three.chunk_of_block(79, 3) == 2);
  CHECK_FALSE(pipeline_split(8, 4, 4).fits());

  // Kimi K2 as Megatron-Bridge's recipes run it: 61 layers over pipeline 4 x virtual 4 = 16 chunks
  // (13 chunks of 4 layers, 3 of 3); stage s holds chunks s, s + 4, s + 8, s + 12.
  const auto job = resolve(llm_job("kimi-k2", 256, "parallelism: {pipeline: 4, virtual_pipeline: 4, expert: 64}\n"));
  const auto stages = partition_stages(job.workload, make_layout(job));
  REQUIRE(stages.size() == 4);
  CHECK(stages[0].blocks == 16);
  for (int s = 1; s < 4; ++s) CHECK(stages[static_cast<std::size_t>(s)].blocks == 15);
  auto has = [](const Stage& s, OpKind k) {
    return std::any_of(s.ops.begin(), s.ops.end(), [k](const Op& o) { return o.kind == k; });
  };
  CHECK(has(stages[0], OpKind::embedding));  // with a heavy chunk, as in Megatron-Bridge's Kimi K2 layout
  CHECK(has(stages[3], OpKind::loss));       // with a light one
  CHECK_FALSE(has(stages[3], OpKind::embedding));
  const auto p = predict(llm_job("kimi-k2", 256, "parallelism: {pipeline: 4, virtual_pipeline: 4, expert: 64}\n"));
  CHECK(p.iteration_s > 0);
  CHECK(std::any_of(p.warnings.begin(), p.warnings.end(),
                    [](const std::string& w) { return w.find("16 chunks: the first 13 take 4 layers, the rest 3") != std::string::npos; }));

  // More chunks than layers leaves a chunk empty: refused with the field named.
  const auto refusal = ptp::test::error_of(llm_job("llama3-8b", 64, "parallelism: {pipeline: 8, virtual_pipeline: 8}\n"));
  CHECK(refusal.find("parallelism.virtual_pipeline") != std::string::npos);
  CHECK(refusal.find("cannot fill pipeline x virtual_pipeline = 64 chunks") != std::string::npos);
}

TEST_CASE("memory per GPU for each sharding choice", "[llm][memory]") {
  // Llama 3 8B, 8 GPUs, BF16's default convention (Megatron): BF16 params, FP32 main gradients, FP32
  // master weights and Adam: 2 + 4 + 12 bytes per parameter.
  auto mem = [](const std::string& sharding) {
    return predict(llm_job("llama3-8b", 8, "sharding: " + sharding + "\n", "bf16", "h100-sxm5-80gb", 4096, 8)).memory;
  };
  const auto none = mem("none"), z1 = mem("zero1"), z2 = mem("zero2"), z3 = mem("zero3");
  const double P = resolve(llm_job("llama3-8b", 8, "")).workload.params();
  CHECK(none.weights == Approx(2 * P));
  CHECK(none.gradients == Approx(4 * P));
  CHECK(none.master_weights == Approx(4 * P));
  CHECK(none.optimizer_state == Approx(8 * P));
  CHECK(z1.master_weights + z1.optimizer_state == Approx(12 * P / 8));
  CHECK(z1.gradients == Approx(4 * P));
  CHECK(z2.gradients == Approx(4 * P / 8));
  // The shard plus the gathered working set (two units; here the 0.5B-parameter embedding/head).
  // ZeRO-3 defaults to FSDP mixed precision: FP32 shards, BF16 gathered units.
  CHECK(z3.convention == "fsdp");
  CHECK(z3.weights > 4 * P / 8);
  CHECK(z3.weights < 4 * P / 8 + 2 * 2 * 128256.0 * 4096 * 1.01);
  CHECK(none.activations == Approx(z3.activations));
  CHECK(none.per_gpu_bytes > z1.per_gpu_bytes);
  CHECK(z1.per_gpu_bytes > z2.per_gpu_bytes);
  CHECK(z2.per_gpu_bytes > z3.per_gpu_bytes);
}

TEST_CASE("memory follows the job's framework convention, and its parts add up", "[llm][memory]") {
  auto mem = [](const std::string& extra, const std::string& precision = "bf16") {
    return predict(llm_job("llama3-8b", 8, extra, precision, "h100-sxm5-80gb", 4096, 8)).memory;
  };
  const double P = resolve(llm_job("llama3-8b", 8, "")).workload.params();
  const double linear = 32.0 * (4096.0 * (4096 + 1024 + 1024 + 4096) + 3.0 * 4096 * 14336);
  const auto deflt = mem(""), mega = mem("memory: {convention: megatron}\n"), pure = mem("memory: {convention: pure}\n");
  const auto fsdp = mem("memory: {convention: fsdp}\n"), autocast = mem("memory: {convention: autocast}\n");
  CHECK(deflt.convention == "megatron");  // BF16's default
  // Sharded weights default to FSDP's mixed precision: no TE FP8 caches of weights held in shards.
  CHECK(mem("sharding: fsdp\n", "fp8").convention == "fsdp");
  CHECK(mem("sharding: fsdp\n", "fp8").fp8_weight_copies == 0);
  CHECK(mem("sharding: zero1\n", "fp8").convention == "megatron");
  const auto ds = mem("memory: {convention: master_weights}\n");
  CHECK(ds.gradients == Approx(2 * P));  // DeepSpeed/Apex O2: 16-bit gradients
  // Megatron keeps FP32 main gradients; pure BF16 keeps no FP32 copy at all.
  CHECK(mega.gradients == Approx(4 * P));
  CHECK(mega.master_weights == Approx(4 * P));
  CHECK(pure.weights == Approx(2 * P));
  CHECK(pure.master_weights == 0);
  CHECK(pure.optimizer_state == Approx(2 * 2 * P));
  // FP32 weights under autocast and FSDP mixed precision are their own master.
  for (const auto& m : {fsdp, autocast}) {
    CHECK(m.weights == Approx(4 * P));
    CHECK(m.master_weights == 0);
    CHECK(m.gradients == Approx(4 * P));
  }
  // Transformer Engine's FP8 caches: a weight and its transpose per block projection, Megatron only.
  CHECK(mem("memory: {convention: megatron}\n", "fp8").fp8_weight_copies == Approx(2 * linear));
  CHECK(mem("memory: {convention: master_weights}\n", "fp8").fp8_weight_copies == 0);
  // Explicit dtypes override the convention.
  CHECK(mem("memory: {convention: pure, grad_dtype: fp32}\n").gradients == Approx(4 * P));
  CHECK(mem("memory: {master_weights: false}\n").master_weights == 0);
  // The loss at the start of backward, per logit (4096 tokens x 128256): unfused FP32 log-probabilities
  // and two FP32 gradients (12 bytes); chunked, or compiled by torch.compile, the BF16 logits and
  // their BF16 gradient (4); fused (Megatron), the logits and an FP32 softmax (6).
  const double logits = 4096.0 * 128256;
  const double unfused = mem("memory: {convention: pure, cross_entropy: unfused}\n").activations;
  CHECK(unfused - mem("memory: {convention: pure, cross_entropy: compiled}\n").activations == Approx(8 * logits));
  CHECK(unfused - mem("memory: {convention: pure, cross_entropy: chunked}\n").activations == Approx(8 * logits));
  CHECK(unfused - mem("memory: {convention: pure, cross_entropy: fused}\n").activations == Approx(6 * logits));
  // DTensor's loss_parallel (torchtitan with TP, eager): four FP32 tensors per logit in its backward.
  CHECK(mem("memory: {convention: pure, cross_entropy: loss_parallel}\n").activations - unfused == Approx(4 * logits));
  // Eager modules (pure) against fused kernels (master_weights, the same loss): each norm keeps an
  // FP32 copy of its input (4 bytes per element), and each SwiGLU keeps silu(gate) for the product's
  // backward beside gate and up (2 bytes per ffn element: 4096 tokens x 14336, 32 blocks).
  double norm_elements = 0;
  for (const auto& op : resolve(llm_job("llama3-8b", 8, "")).workload.ops)
    if (op.kind == OpKind::norm) norm_elements += op.saved;
  const double fp32_norm_copies = 4 * norm_elements, silu_outputs = 32.0 * 4096 * 14336 * 2;
  CHECK(unfused - mem("memory: {convention: master_weights, cross_entropy: unfused}\n").activations ==
        Approx(fp32_norm_copies + silu_outputs));
  for (const auto& m : {deflt, ds, mega, pure, fsdp, autocast}) {
    INFO(m.convention);
    CHECK(m.weights + m.master_weights + m.gradients + m.optimizer_state + m.fp8_weight_copies + m.activations +
              m.workspace == Approx(m.allocated_bytes));
    CHECK(m.reserved_bytes > m.allocated_bytes);
    CHECK(m.reserved_bytes + m.runtime_bytes == Approx(m.per_gpu_bytes));
  }
  // A convention moves memory and the optimizer step, never the forward and backward matmuls (its
  // default attention kernel aside, pinned here; test_attention_kernel.cpp).
  const auto a = predict(llm_job("llama3-8b", 8, "")),
             b = predict(llm_job("llama3-8b", 8, "memory: {convention: pure}\nattention_kernel: cudnn\n"));
  CHECK(a.breakdown.forward == Approx(b.breakdown.forward));
  CHECK(a.breakdown.optimizer > b.breakdown.optimizer);
  // An unknown convention is a one-line error naming the field.
  const std::string e = ptp::test::error_of(llm_job("llama3-8b", 8, "memory: {convention: megatorn}\n"));
  CHECK_THAT(e, Catch::Contains("memory.convention: unknown value 'megatorn' (did you mean: megatron?)"));
}

TEST_CASE("memory per GPU for tensor, pipeline and recomputation choices", "[llm][memory]") {
  const std::string base = "sharding: zero1\n";
  auto mem = [&](const std::string& layout, const std::string& ckpt = "none") {
    return predict(llm_job("llama3-70b", 64, base + layout + "activation_checkpointing: " + ckpt + "\n", "bf16",
                           "h100-sxm5-80gb", 4096, 64))
        .memory;
  };
  const auto tp1 = mem(""), tp2 = mem("parallelism: {tensor: 2}\n");
  CHECK(tp2.weights == Approx(tp1.weights / 2).epsilon(0.01));
  // Sequence parallel splits the replicated activations too.
  const auto tp2sp = mem("parallelism: {tensor: 2}\nsequence_parallel: true\n");
  CHECK(tp2sp.activations < tp2.activations);
  CHECK(tp2sp.activations == Approx(tp1.activations / 2).epsilon(0.05));
  // Pipeline: a quarter of the weights, but the first stage holds 4 micro-batches of a quarter of the blocks.
  const auto pp4 = mem("parallelism: {pipeline: 4}\n");
  CHECK(pp4.weights == Approx(tp1.weights / 4).epsilon(0.05));
  CHECK(pp4.activations == Approx(tp1.activations).epsilon(0.1));
  // Recomputation: full keeps one block input per block, selective drops what it recomputes.
  // Megatron's selective (the default convention here) checkpoints the fused attention kernel: it
  // keeps q, k, v as the checkpoint's inputs and drops the kernel's output, which the output
  // projection keeps as its input: over a fused kernel it saves nothing (and redoes the kernel).
  const auto full = mem("", "full"), selective = mem("", "selective");
  CHECK(full.activations < selective.activations);
  CHECK(selective.activations == Approx(tp1.activations).epsilon(0.01));
  CHECK(full.activations < tp1.activations / 5);
  // torchtitan's per-op policy (convention fsdp) keeps the block input, the attention output and
  // every second matmul's output: far less than everything, more than full recompute.
  const auto sac = mem("memory: {convention: fsdp}\n", "selective");
  const auto kept_all = mem("memory: {convention: fsdp}\n");
  CHECK(sac.activations < 0.8 * kept_all.activations);
  CHECK(sac.activations > full.activations);
}

TEST_CASE("the breakdown composes the iteration; the bubble is (pp-1)/(vp m) of the micro-batch work",
          "[llm][step]") {
  const auto p = predict(llm_job("llama3-70b", 64,
                                 "parallelism: {tensor: 4, pipeline: 4, virtual_pipeline: 5}\nsequence_parallel: true\n"
                                 "sharding: zero1\n",
                                 "bf16", "h100-sxm5-80gb", 4096, 128));
  const auto& b = p.breakdown;
  const double m = p.layout.microbatches;
  REQUIRE(m == 32);
  const double work = b.forward + b.backward + b.recompute + b.tp_communication + b.cp_communication +
                      b.ep_communication + b.pp_communication;
  CHECK(b.pp_bubble == Approx(work * 3.0 / (5 * m)));
  CHECK(p.layout.bubble_fraction == Approx(3.0 / 160));
  const double sum = b.forward + b.backward + b.recompute + b.pp_bubble + b.communication_exposed + b.optimizer +
                     b.loss_scaling;
  CHECK(sum < p.iteration_s);
  CHECK(sum > 0.99 * p.iteration_s);
  CHECK(b.communication_exposed == Approx(b.tp_communication + b.cp_communication + b.ep_communication +
                                         b.pp_communication + b.dp_communication));
  CHECK(b.tp_communication > 0);
  CHECK(b.pp_communication > 0);
  CHECK(b.communication >= b.communication_exposed);
}

TEST_CASE("TP collectives: none without TP, more of them with more ranks and across nodes", "[llm][step]") {
  auto tp_comm = [](int tp) {
    return predict(llm_job("llama3-70b", 16, "parallelism: {tensor: " + std::to_string(tp) + "}\nsequence_parallel: true\n"))
        .breakdown.tp_communication;
  };
  CHECK(tp_comm(1) == 0);
  const double t8 = tp_comm(8), t16 = tp_comm(16);
  CHECK(t8 > 0);
  // 16 ranks span two nodes: every NIC of both nodes carries the ring, plus the hop latency.
  CHECK(t16 > t8);
}

TEST_CASE("recomputation costs a forward pass (full) or the cheap ops (selective)", "[llm][step]") {
  auto run = [](const std::string& ckpt) {
    return predict(llm_job("llama3-8b", 8, "sharding: fsdp\nactivation_checkpointing: " + ckpt + "\n", "bf16",
                           "h100-sxm5-80gb", 8192, 8));
  };
  const auto none = run("none"), sel = run("selective"), full = run("full");
  CHECK(none.breakdown.recompute == 0);
  CHECK(full.breakdown.recompute > 0.8 * full.breakdown.forward);
  CHECK(full.breakdown.recompute <= full.breakdown.forward);
  CHECK(sel.breakdown.recompute > 0);
  CHECK(sel.breakdown.recompute < 0.3 * full.breakdown.recompute);
  CHECK(full.iteration_s > sel.iteration_s);
  CHECK(full.memory.activations < sel.memory.activations);
}

TEST_CASE("selective recomputation is the framework's: Megatron redoes the core attention, torchtitan all but every "
          "second matmul",
          "[llm][step][memory]") {
  auto run = [](const std::string& convention, const std::string& ckpt) {
    return predict(llm_job("llama3-8b", 8,
                           "sharding: fsdp\nmemory: {convention: " + convention + "}\nactivation_checkpointing: " + ckpt +
                               "\n",
                           "bf16", "h100-sxm5-80gb", 8192, 8));
  };
  const auto megatron = run("megatron", "selective"), sac = run("fsdp", "selective"), full = run("fsdp", "full"),
             none = run("fsdp", "none");
  // Megatron reruns the fused attention kernel only.
  CHECK(megatron.breakdown.recompute > 0);
  CHECK(megatron.breakdown.recompute < 0.3 * full.breakdown.recompute);
  // torchtitan reruns k, o and up of Llama's seven matmuls, and every norm and elementwise op.
  CHECK(sac.breakdown.recompute > 1.5 * megatron.breakdown.recompute);
  CHECK(sac.breakdown.recompute < 0.6 * full.breakdown.recompute);
  CHECK(sac.memory.activations < none.memory.activations);
  CHECK(sac.memory.activations > full.memory.activations);
}

TEST_CASE("FP8 stashes: Transformer Engine keeps the FP8 GEMM inputs, torchao float8 the BF16 ones", "[llm][memory]") {
  auto activations = [](const std::string& convention, const std::string& precision) {
    return predict(llm_job("llama3-8b", 8, "memory: {convention: " + convention + "}\n", precision)).memory.activations;
  };
  CHECK(activations("megatron", "fp8") < 0.9 * activations("megatron", "bf16"));
  CHECK(activations("fsdp", "fp8") == Approx(activations("fsdp", "bf16")));
}

TEST_CASE("a block stashes what its stack keeps: Transformer Engine's tensors under Megatron; repeated K/V "
          "heads and RoPE inputs only where the PyTorch stacks keep them", "[llm][memory]") {
  // Llama-3-8B cut to one and two blocks (h = 4096, 32 query heads of 128, ffn 14336), grouped
  // (8 K/V heads) or not: the difference of the two is one block's stash, 4096 tokens per GPU.
  const std::string zoo = ptp::test::slurp(ptp::test::source_path("configs/models/llama3-8b.yaml"));
  auto model = [&](int layers, int kv_heads) {
    std::string y = zoo;
    y.replace(y.find("layers: 32"), 10, "layers: " + std::to_string(layers));
    y.replace(y.find("kv_heads: 8"), 11, "kv_heads: " + std::to_string(kv_heads));
    y.replace(y.find("id: llama3-8b"), 13, "id: llama3-cut");
    return ptp::test::write_temp_file("cut" + std::to_string(layers) + "_" + std::to_string(kv_heads) + ".yaml", y);
  };
  auto block = [&](int kv_heads, const std::string& memory, const std::string& layout = "") {
    auto activations = [&](int layers) {
      return predict(llm_job(model(layers, kv_heads), 2, "memory: {cross_entropy: unfused" + memory + "}\n" + layout))
          .memory.activations;
    };
    return activations(2) - activations(1);
  };
  const double T = 4096, h = 4096, q = 4096, ffn = 14336, kv = 8 * 128.0;
  // Transformer Engine (megatron): the norms' inputs and outputs, q, k, v at the K/V heads and the
  // attention output (the output projection's input, the same tensor), the fc1 output and the SwiGLU
  // output, at 2 bytes. Fused RoPE keeps only its frequencies.
  const double te = T * 2 * (4 * h + q + 2 * kv + q + 3 * ffn);
  CHECK(block(8, ", convention: megatron") == Approx(te));
  // An FSDP convention implied by sharding keeps the BF16 default's (Megatron's) stash.
  CHECK(block(8, "", "sharding: fsdp\n") == Approx(te));
  // HF and torchtitan repeat the K/V heads to the query heads before attention (repeat_kv), and the
  // kernel keeps the copies: 2 (q - kv) elements more per token; nothing more without grouping.
  CHECK(block(8, ", convention: master_weights") - block(8, ", convention: megatron") == Approx(T * 2 * 2 * (q - kv)));
  CHECK(block(8, ", convention: fsdp") == Approx(block(8, ", convention: master_weights")));
  CHECK(block(32, ", convention: master_weights") == Approx(block(32, ", convention: megatron")));
  // litgpt (pure) keeps the fused qkv alive through the value, a view of it, when it does not repeat
  // the K/V heads: the RoPE inputs q and k stay (2 h elements). Grouped, its repeat copies q, k, v alike.
  auto eager = [&](int kv_heads) {
    return block(kv_heads, ", convention: pure") - block(kv_heads, ", convention: master_weights");
  };
  CHECK(eager(32) - eager(8) == Approx(T * 2 * (q + 32 * 128.0)));
}

TEST_CASE("FSDP under a pipeline keeps a stage's gradients unsharded until its last micro-batch", "[llm][memory]") {
  auto mem = [](const std::string& layout) {
    return predict(llm_job("llama3-70b", 64, "sharding: fsdp\n" + layout, "bf16", "h100-sxm5-80gb", 4096, 256)).memory;
  };
  const auto flat = mem(""), piped = mem("parallelism: {pipeline: 4}\n");
  // 64-way sharded without a pipeline; a quarter of the model, whole, on each stage with one.
  CHECK(piped.gradients == Approx(flat.gradients * 64 / 4).epsilon(0.1));
  CHECK(piped.optimizer_state == Approx(flat.optimizer_state * 64 / 16 / 4).epsilon(0.1));
}

TEST_CASE("FSDP no_sync accumulation keeps whole gradients; flat parameters give frozen weights gradients",
          "[llm][memory]") {
  // 8 GPUs, global batch 64: 8 micro-batches per step.
  auto job = [](const std::string& extra, int global_batch = 64, const std::string& sharding = "fsdp") {
    return predict(llm_job("llama3-8b", 8, "sharding: " + sharding + "\n" + extra, "bf16", "h100-sxm5-80gb", 4096,
                           global_batch));
  };
  const auto every = job(""), once = job("memory: {grad_sync: step}\n");
  CHECK(once.memory.gradients == Approx(every.memory.gradients * 8));  // unsharded on every one of 8 ranks
  CHECK(once.memory.weights == Approx(every.memory.weights));
  // One reduce-scatter per step instead of one per micro-batch; the math does not move.
  CHECK(once.breakdown.dp_communication < every.breakdown.dp_communication);
  CHECK(once.breakdown.forward == Approx(every.breakdown.forward));
  CHECK(once.breakdown.backward == Approx(every.breakdown.backward));
  // Nothing to keep without accumulation, or when nothing is sharded.
  CHECK(job("memory: {grad_sync: step}\n", 8).memory.gradients == Approx(job("", 8).memory.gradients));
  CHECK(job("memory: {grad_sync: step}\n", 64, "none").memory.gradients ==
        Approx(job("", 64, "none").memory.gradients));

  // LoRA on attention: the frozen block projections get gradients only with frozen_grads.
  const double linear = 32.0 * (4096.0 * (4096 + 1024 + 1024 + 4096) + 3.0 * 4096 * 14336);
  const std::string lora = "finetune: {method: lora, rank: 8, targets: [attention]}\n";
  const auto adapters = job(lora + "memory: {convention: pure}\n");
  const auto flat = job(lora + "memory: {convention: pure, frozen_grads: true}\n");
  const auto flat_once = job(lora + "memory: {convention: pure, frozen_grads: true, grad_sync: step}\n");
  CHECK(adapters.memory.gradients < 0.01 * linear);
  CHECK(flat.memory.gradients - adapters.memory.gradients == Approx(2 * linear / 8));  // BF16, sharded 8 ways
  CHECK(flat_once.memory.gradients == Approx(2 * linear).epsilon(0.01));               // BF16, whole
  // Their reduce-scatter carries the frozen gradients too.
  CHECK(flat.breakdown.dp_communication > adapters.breakdown.dp_communication);
  for (const auto& m : {once.memory, flat.memory, flat_once.memory})
    CHECK(m.weights + m.master_weights + m.gradients + m.optimizer_state + m.fp8_weight_copies + m.activations +
              m.workspace == Approx(m.allocated_bytes));
  const std::string e = ptp::test::error_of(llm_job("llama3-8b", 8, "memory: {grad_sync: never}\n"));
  CHECK_THAT(e, Catch::Contains("memory.grad_sync"));
}

TEST_CASE("memory.untie_embeddings: a framework's own LM head for a tied model is held and trained apart",
          "[llm][memory]") {
  // Llama 3.2 1B ties its LM head to the token table (128256 x 2048); litgpt keeps a copy of its own.
  const double head = 128256.0 * 2048;
  const std::string pure = "memory: {convention: pure}\n";
  const auto tied = predict(llm_job("llama3.2-1b", 1, pure, "bf16", "a10", 512));
  const auto untied = predict(llm_job("llama3.2-1b", 1, "memory: {convention: pure, untie_embeddings: true}\n", "bf16", "a10", 512));
  CHECK(untied.memory.weights - tied.memory.weights == Approx(2 * head));       // BF16
  CHECK(untied.memory.gradients - tied.memory.gradients == Approx(2 * head));   // trained: a BF16 gradient
  CHECK(untied.memory.optimizer_state > tied.memory.optimizer_state);          // and Adam's moments
  CHECK(untied.breakdown.optimizer > tied.breakdown.optimizer);
  // Frozen under LoRA: the copy is a weight and nothing else.
  const std::string lora = "finetune: {method: lora, rank: 8, targets: [attention]}\n";
  const auto lora_tied = predict(llm_job("llama3.2-1b", 1, lora + pure, "bf16", "a10", 512));
  const auto lora_untied =
      predict(llm_job("llama3.2-1b", 1, lora + "memory: {convention: pure, untie_embeddings: true}\n", "bf16", "a10", 512));
  CHECK(lora_untied.memory.weights - lora_tied.memory.weights == Approx(2 * head));
  CHECK(lora_untied.memory.gradients == Approx(lora_tied.memory.gradients));
  // An untied model has nothing to untie.
  CHECK(predict(llm_job("llama3-8b", 1, "memory: {untie_embeddings: true}\n")).memory.weights ==
        Approx(predict(llm_job("llama3-8b", 1, "")).memory.weights));
}

TEST_CASE("FSDP traffic is overlapped but not free; one GPU has none", "[llm][step]") {
  const auto fsdp = predict(llm_job("llama3-8b", 8, "sharding: fsdp\n", "bf16", "h100-sxm5-80gb", 4096, 8));
  CHECK(fsdp.breakdown.dp_communication > 0);
  CHECK(fsdp.breakdown.communication > fsdp.breakdown.dp_communication);
  const auto one = predict(llm_job("llama3-8b", 1, "sharding: fsdp\n", "bf16", "b200-sxm-180gb", 4096, 1));
  CHECK(one.breakdown.dp_communication == 0);
}

TEST_CASE("FP8 is faster than BF16 but well short of the 2x peak ratio", "[llm][precision]") {
  const std::string layout = "parallelism: {tensor: 4}\nsequence_parallel: true\nsharding: zero1\n";
  const auto bf16 = predict(llm_job("llama3-70b", 64, layout, "bf16", "h100-sxm5-80gb", 8192, 64));
  const auto fp8 = predict(llm_job("llama3-70b", 64, layout, "fp8", "h100-sxm5-80gb", 8192, 64));
  const double speedup = bf16.iteration_s / fp8.iteration_s;
  CHECK(speedup > 1.15);
  CHECK(speedup < 1.8);
  CHECK(fp8.memory.activations < bf16.memory.activations);  // FP8 GEMM inputs are stashed in FP8
}

TEST_CASE("a layout sweep ranks the layouts that fit and marks the ones that do not", "[llm][sweep]") {
  const std::string path = std::string(PTP_SOURCE_DIR) + "/configs/jobs/llama3-70b-fp8-256xh100.yaml";
  const Predictor predictor(std::string(PTP_SOURCE_DIR) + "/configs", "", false);
  PredictRequest req;
  req.job_files = {path};
  req.overrides = {parse_override("parallelism.virtual_pipeline=1")};
  req.sweeps = {parse_sweep_axis("parallelism.tensor=1,2,4,8"), parse_sweep_axis("parallelism.pipeline=1,2,4")};
  const auto table = run_predictions(req, predictor).stdout_text;
  CHECK_THAT(table, Catch::Contains("rank") && Catch::Contains("(no fit)") && Catch::Contains("tok/s/GPU"));
  req.format = "csv";
  const auto csv = CsvTable::parse(run_predictions(req, predictor).stdout_text, "out.csv");
  REQUIRE(csv.rows().size() == 12);
  int first = 0, unranked = 0;
  for (const auto& row : csv.rows()) {
    const auto& rank = csv.text(row, "rank");
    first += rank == "1";
    if (rank.empty()) {
      ++unranked;
      CHECK(csv.text(row, "memory.fits") == "false");
    }
  }
  CHECK(first == 1);
  CHECK(unranked > 0);
  CHECK(unranked < 12);
}

TEST_CASE("sharding and prediction never read op names: a family with arbitrary names gets the same answer",
          "[llm][shard]") {
  // The same workload with every op renamed to an arbitrary token ("op17", no block prefix): the
  // parallel roles the family set (tp_role, expert_split, in_block) are all sharding may use.
  for (const char* layout : {"parallelism: {tensor: 4, pipeline: 2}\nsequence_parallel: true\n"
                             "activation_checkpointing: selective\n",
                             "parallelism: {tensor: 2, context: 2, pipeline: 2}\nactivation_checkpointing: full\n"}) {
    INFO(layout);
    const auto named = resolve(llm_job("llama3-8b", 16, layout));
    auto renamed = named;
    for (std::size_t i = 0; i < renamed.workload.ops.size(); ++i) renamed.workload.ops[i].name = "op" + std::to_string(i * 7919 % 100003);
    const auto a = partition_stages(named.workload, make_layout(named));
    const auto b = partition_stages(renamed.workload, make_layout(renamed));
    REQUIRE(a.size() == b.size());
    for (std::size_t s = 0; s < a.size(); ++s) {
      CHECK(a[s].blocks == b[s].blocks);
      CHECK(a[s].params == b[s].params);
      REQUIRE(a[s].ops.size() == b[s].ops.size());
      for (std::size_t i = 0; i < a[s].ops.size(); ++i) {
        CHECK(a[s].ops[i].fwd_flops == b[s].ops[i].fwd_flops);
        CHECK(a[s].ops[i].m * a[s].ops[i].n * a[s].ops[i].k == b[s].ops[i].m * b[s].ops[i].n * b[s].ops[i].k);
      }
    }
    const auto pa = predict_analytical(named), pb = predict_analytical(renamed);
    CHECK(pa.iteration_s == pb.iteration_s);
    CHECK(pa.memory.per_gpu_bytes == pb.memory.per_gpu_bytes);
    CHECK(pa.breakdown.tp_communication == pb.breakdown.tp_communication);
    CHECK(pa.breakdown.recompute == pb.breakdown.recompute);
  }
}
