// The job-field table: one row per job-spec field (job_field_row.hpp says how a row is written).
// A new field is one row here plus its physics.
#include <string>
#include <vector>

#include "job_field_row.hpp"
#include "ptp/predict/job_enums.hpp"
#include "ptp/vocab/attention_kernel.hpp"
#include "ptp/vocab/fp8_recipe.hpp"
#include "ptp/vocab/memory_convention.hpp"
#include "ptp/vocab/precision.hpp"
#include "ptp/vocab/training_layout.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::detail {

namespace {

std::vector<std::string> low_precision_module_names() {
  std::vector<std::string> out;
  for (const auto& [name, covers] : low_precision_modules()) out.push_back(name);
  return out;
}

// finetune's keys beyond method belong to adapter jobs; the quantisation keys to QLoRA alone.
std::string unless_lora(const JobSpec& j) {
  return j.finetune.lora() ? "" : "applies to method: lora or qlora only (method: full trains every weight)";
}
std::string unless_qlora(const JobSpec& j) {
  if (!j.finetune.lora()) return unless_lora(j);
  return j.finetune.quantized_base() ? "" : "applies to method: qlora only (a LoRA base is not quantised)";
}

using F = FieldType;
#define REF(member) [](auto& j) -> auto& { return j.member; }

// The model, its precision and stack names, and the batch.
std::vector<JobField> model_rows() {
  return {
    section("launch", "what the job was launched with; its values fill the fields the job leaves out (docs/launch-import.md)"),
    Row("launch.megatron_args", F::text).bind(REF(launch.megatron_args))
        .help("Megatron-LM arguments the job ran (an argument list, a command line or a launch script), relative to the job file"),
    Row("launch.torchtitan_toml", F::text).bind(REF(launch.torchtitan_toml))
        .help("torchtitan TOML job config the job ran, relative to the job file"),
    Row("model", F::text).bind(REF(model)).required().always()
        .help("model zoo id (configs/models/) or a path to a model YAML or Hugging Face config.json, relative to the job file; "
              "without it, the launch file's model"),
    Row("precision", F::choice).bind(REF(precision)).choices(precision_ids()).noun("precision").required().always()
        .search("", 4, 6).help("precision policy: how the step computes and stores tensors"),
    Row("framework", F::choice).bind_enum(REF(framework), framework_names()).always()
        .help("framework the job runs on: launch overheads, default activation layout, graph compilation"),
    Row("codebase", F::text).bind(REF(codebase))
        .derived("unknown: a typical codebase").help("training codebase (e.g. megatron-bridge, torchtitan, dle-pytorch); a bundle's codebase_offsets name those it has runs of"),
    Row("attention_kernel", F::choice).bind(REF(attention_kernel)).choices(attention_kernel_ids())
        .derived("the memory convention's").help("fused-attention kernel family the stack runs"),
    Row("fp8_recipe", F::choice).bind(REF(fp8_recipe)).choices(fp8_recipe_ids())
        .derived("tensorwise").help("how FP8 GEMMs scale their operands; read only when the precision's GEMMs run in FP8"),
    Row("xla", F::flag).bind(REF(xla)).help("graph-compiled with XLA"),
    Row("memory_format", F::choice).bind_enum(REF(memory_format), memory_format_names())
        .derived("nchw under pytorch, nhwc otherwise").help("activation layout of convolutions"),
    Row("batch_size", F::integer).bind(REF(batch_size)).range(1, 100'000'000).then([](JobSpec& j) { j.batch_tokens = 0; })
        .derived("required unless batch_tokens").search("micro-batch", 0, 19).help("micro-batch per GPU in samples; exactly one of batch_size and batch_tokens"),
    Row("batch_tokens", F::integer).bind(REF(batch_tokens)).range(1, 10'000'000'000).then([](JobSpec& j) { j.batch_size = 0; })
        .derived("required unless batch_size").search("micro-tokens", 0, 20).help("tokens per GPU per micro-batch, for token-batched jobs"),
    Row("seq_len", F::integer).bind(REF(seq_len)).range(1, 10'000'000)
        .derived("required for sequence models").search("", 0, 8).help("sequence length (the padded or packed length)"),
    Row("grad_accum", F::integer).bind(REF(grad_accum)).range(1, 1'000'000).always()
        .derived_here([](const JobSpec& j) { return j.global_batch_size.has_value(); })
        .search("", 4, 18).help("micro-batches per optimizer step; derived when global_batch_size is given"),
    Row("global_batch_size", F::integer).bind(REF(global_batch_size)).range(1, 1e12)
        .derived("batch_size x data-parallel degree x grad_accum").search("global batch", 4, 17)
        .help("samples per optimizer step; grad_accum is derived from it"),
    Row("optimizer", F::choice).bind_enum(REF(optimizer), optimizer_names()).always()
        .search("", 4, 7).help("optimizer: its state tensors and update traffic"),
  };
}

// The GPUs and how long the job runs, what it costs.
std::vector<JobField> cluster_and_run_rows() {
  return {
    section("cluster", "the GPUs the job runs on").required().always(),
    Row("cluster.gpu", F::text).bind(REF(cluster.gpu)).required().always()
        .search("GPU", 4, 1).help("GPU catalog id (configs/gpus/)"),
    Row("cluster.num_gpus", F::integer).bind(REF(cluster.num_gpus)).range(1, 1'000'000).always()
        .search("GPUs", 4, 2).help("GPUs in the job"),
    Row("cluster.gpus_per_node", F::integer).bind(REF(cluster.gpus_per_node)).range(1, 1024)
        .derived("min(num_gpus, 8, the GPU's maximum)").search("per node", 4, 3).help("GPUs per node"),
    Row("cluster.inter_node", F::text).bind(REF(cluster.inter_node))
        .derived("the GPU's default fabric").search("fabric", 4, 4).help("fabric between nodes (configs/fabrics/)"),
    Row("cluster.nccl_p2p", F::flag).bind(REF(cluster.nccl_p2p))
        .help("NCCL peer-to-peer inside a node; false: NCCL_P2P_DISABLE=1, collectives staged through host memory"),
    Row("cluster.power_limit_w", F::number).bind(REF(cluster.power_limit_w)).range(1, 5000)
        .derived("the GPU's default limit").search("", 4, 5).help("what-if power cap per GPU in W, within the GPU's range"),

    section("run", "how long the job runs: exactly one of steps | epochs + dataset_size | tokens"),
    Row("run.steps", F::integer).bind(REF(run.steps)).range(1, 1e15).help("optimizer steps"),
    Row("run.epochs", F::number).bind(REF(run.epochs)).range(1e-6, 1e9).help("passes over dataset_size samples"),
    Row("run.dataset_size", F::integer).bind(REF(run.dataset_size)).range(1, 1e15).help("samples per epoch"),
    Row("run.tokens", F::number).bind(REF(run.tokens)).range(1, 1e18).help("training tokens"),
    section("run.eval", "evaluation passes the total adds: one every every_steps steps (the last step included)"),
    Row("run.eval.every_steps", F::integer).bind(REF(run.eval_every_steps)).range(1, 1e15).required()
        .help("optimizer steps between evaluations"),
    Row("run.eval.seconds", F::number).bind(REF(run.eval_seconds)).range(0, 1e9).required()
        .help("wall seconds of one evaluation, as you measured it (ptp does not predict evaluation)"),
    section("run.checkpoint", "checkpoint saves the total adds: one every every_steps steps (the last step included)"),
    Row("run.checkpoint.every_steps", F::integer).bind(REF(run.checkpoint_every_steps)).range(1, 1e15).required()
        .help("optimizer steps between checkpoint saves"),
    Row("run.checkpoint.seconds", F::number).bind(REF(run.checkpoint_seconds)).range(0, 1e9).required()
        .help("wall seconds the training stalls for one save, as you measured it"),

    section("cost", "what the GPUs cost"),
    Row("cost.usd_per_gpu_hour", F::number).bind(REF(usd_per_gpu_hour)).range(0, 1e6)
        .derived("the catalog's price").help("price of one GPU hour of cluster.gpu (another GPU in a sweep or search takes its catalog price, or none)"),
  };
}

// How the GPUs split the model and the training state.
std::vector<JobField> parallel_rows() {
  return {
    section("parallelism", "model-parallel degrees; data parallelism takes the remaining GPUs"),
    Row("parallelism.tensor", F::integer).bind(REF(parallelism.tensor)).range(1, 1024).with_section()
        .search("TP", 1, 9).help("tensor-parallel degree"),
    Row("parallelism.pipeline", F::integer).bind(REF(parallelism.pipeline)).range(1, 4096).with_section()
        .search("PP", 2, 10).help("pipeline stages"),
    Row("parallelism.virtual_pipeline", F::integer).bind(REF(parallelism.virtual_pipeline)).range(1, 1024).with_section()
        .search("VP", 3, 11).help("interleaved model chunks per pipeline stage"),
    Row("parallelism.context", F::integer).bind(REF(parallelism.context)).range(1, 1024).with_section()
        .search("CP", 1, 12).help("context-parallel degree (the sequence split over GPUs)"),
    Row("parallelism.expert", F::integer).bind(REF(parallelism.expert)).range(1, 4096).with_section()
        .search("EP", 1, 13).help("expert-parallel degree"),
    Row("parallelism.data", F::integer).bind(REF(parallelism.data)).range(1, 1'000'000)
        .derived("num_gpus / (tensor x pipeline x context)").help("data-parallel degree"),

    Row("sharding", F::choice).bind_enum(REF(sharding), sharding_names())
        .search("", 4, 15).help("how the data-parallel group shards the training state"),
    Row("activation_checkpointing", F::choice).bind_enum(REF(activation_checkpointing), recompute_names())
        .search("recompute", 4, 16).help("what the backward recomputes"),
    Row("sequence_parallel", F::flag).bind(REF(parallelism.sequence_parallel))
        .search("SP", 1, 14).help("Megatron sequence parallelism inside the tensor-parallel group"),
  };
}

// Which weights train, and what the sequences hold.
std::vector<JobField> finetune_and_sequence_rows() {
  return {
    section("finetune", "full training or low-rank adapters (LoRA, QLoRA)"),
    Row("finetune.method", F::choice).bind_enum(REF(finetune.method), finetune_method_names()).with_section()
        .help("which weights train"),
    Row("finetune.rank", F::integer).bind(REF(finetune.rank)).only_if(unless_lora, "lora and qlora").range(1, 1'000'000).with_section()
        .derived("required for lora and qlora").help("the adapters' inner dimension"),
    Row("finetune.targets", F::choice_list).bind_enum(REF(finetune.targets), lora_target_names()).only_if(unless_lora, "lora and qlora").with_section()
        .noun("target").non_empty().derived("[attention, mlp] for lora and qlora").help("projections that get adapters"),
    Row("finetune.double_quant", F::flag).bind(REF(finetune.double_quant)).only_if(unless_qlora, "qlora").help("qlora: quantised quantisation constants"),
    Row("finetune.quantized_keeps_inputs", F::flag).bind(REF(finetune.quantized_keeps_inputs)).only_if(unless_qlora, "qlora")
        .help("qlora: each 4-bit projection keeps its input for backward (bitsandbytes before 0.43.2)"),
    Row("finetune.quantized_head", F::flag).bind(REF(finetune.quantized_head)).only_if(unless_qlora, "qlora")
        .help("qlora: the LM head is stored in 4 bits too (litgpt)"),
    Row("finetune.quantized_from_fp16", F::flag).bind(REF(finetune.quantized_from_fp16)).only_if(unless_qlora, "qlora")
        .help("qlora: 4-bit weights quantised from FP16, so an FP16 and a compute-dtype copy are live (litgpt)"),
    Row("finetune.dropout", F::number).bind(REF(finetune.dropout)).only_if(unless_lora, "lora and qlora").range(0, 1)
        .help("lora and qlora: the adapters' dropout probability, below 1"),
    Row("finetune.adapter_modules", F::choice).bind_enum(REF(finetune.adapter_modules), adapter_modules_names()).only_if(unless_lora, "lora and qlora")
        .help("adapter modules per fused projection"),

    Row("avg_seq_len", F::number).bind(REF(sequences.avg_seq_len)).range(1, 1e7)
        .derived("seq_len: every slot a real token").help("real tokens per sequence (unpadded data); with packing, the mean document length"),
    Row("packing", F::flag).bind(REF(sequences.packing)).help("documents packed into seq_len"),
    Row("attention_mask", F::choice).bind_enum(REF(sequences.attention_mask), attention_mask_names())
        .help("attention over the whole sequence, or within each packed document"),
  };
}

// What the stack does: overlaps, compilation, CUDA graphs (docs/job-spec.md).
std::vector<JobField> stack_rows() {
  return {
    section("overlap", "what the stack overlaps with compute; a field left out takes what the job's codebase's "
                       "recipes do where ptp knows them (Megatron-Bridge, NeMo, torchtitan), else the predictor's "
                       "assumption; the output states which"),
    Row("overlap.tp_comm", F::flag).bind(REF(overlap.tp_comm)).derived("assumed: half of TP communication exposed")
        .search("TP overlap", 4, 21)
        .help("TP collectives overlap the neighbouring GEMMs (Megatron --tp-comm-overlap, torchtitan async TP); "
              "false exposes them fully"),
    Row("overlap.grad_reduce", F::flag).bind(REF(overlap.grad_reduce)).derived("assumed: overlapped")
        .search("grad overlap", 4, 22)
        .help("data-parallel gradient reductions overlap the backward (Megatron --overlap-grad-reduce, DDP buckets)"),
    Row("overlap.param_gather", F::flag).bind(REF(overlap.param_gather)).derived("assumed: overlapped")
        .search("gather overlap", 4, 23)
        .help("sharded-weight all-gathers overlap the forward (Megatron --overlap-param-gather, FSDP prefetch)"),
    Row("overlap.p2p", F::flag).bind(REF(overlap.p2p)).derived("assumed: half of pipeline sends exposed")
        .search("p2p overlap", 4, 24)
        .help("pipeline sends and receives overlap compute (Megatron --overlap-p2p-comm)"),
    Row("overlap.a2a", F::flag).bind(REF(overlap.a2a)).derived("assumed: not overlapped")
        .search("a2a overlap", 4, 25)
        .help("expert all-to-all overlaps compute (Megatron --overlap-moe-expert-parallel-comm, DeepEP)"),
    Row("compile", F::flag).bind(REF(compile)).derived("assumed: eager (compiled under xla or jax)")
        .search("compile", 4, 26)
        .help("torch.compile or a graph compiler: elementwise and norm chains fuse (their traffic paid once), "
              "fewer kernel launches"),
    Row("fused_optimizer", F::flag).bind(REF(fused_optimizer)).derived("assumed: multi-tensor kernels")
        .search("fused optimizer", 4, 27)
        .help("the optimizer steps all parameters in multi-tensor or fused kernels; false: kernels per parameter "
              "tensor (PyTorch foreach=False)"),
    Row("cuda_graphs", F::flag).bind(REF(cuda_graphs)).derived("assumed: eager launches")
        .search("CUDA graphs", 4, 28).help("the step replays as CUDA graphs: no per-kernel host launch"),
  };
}

// How the training state is stored, the facility's energy figures, the BF16 exceptions.
std::vector<JobField> memory_and_energy_rows() {
  return {
    section("memory", "how the framework stores the training state; each field left out takes the convention's value"),
    Row("memory.convention", F::choice).bind(REF(memory.convention)).choices(memory_convention_ids())
        .derived("the precision policy's default").help("memory convention"),
    Row("memory.grad_dtype", F::choice).bind(REF(memory.grad_dtype)).choices(state_dtype_names())
        .derived("the convention's").help("dtype of the stored gradients"),
    Row("memory.optimizer_dtype", F::choice).bind(REF(memory.optimizer_dtype)).choices(state_dtype_names())
        .derived("the convention's").help("dtype of the optimizer states"),
    Row("memory.master_weights", F::flag).bind(REF(memory.master_weights))
        .derived("the convention's").help("an FP32 master copy of 16-bit weights"),
    Row("memory.cross_entropy", F::choice).bind(REF(memory.cross_entropy)).choices(cross_entropy_names())
        .derived("the convention's").help("how the loss keeps its logits"),
    Row("memory.grad_sync", F::choice).bind_enum(REF(memory.grad_sync), grad_sync_names())
        .derived("micro_batch").help("when data-parallel gradients are reduced under gradient accumulation"),
    Row("memory.frozen_grads", F::flag).bind(REF(memory.frozen_grads))
        .help("frozen weights get gradients too (FSDP1 flat parameters mixing frozen and trainable weights)"),
    Row("memory.untie_embeddings", F::flag).bind(REF(memory.untie_embeddings))
        .help("the framework keeps its own LM head where the model ties it to the token table (litgpt)"),

    section("energy", "facility and grid figures for energy and carbon"),
    Row("energy.pue", F::number).bind(REF(energy.pue)).range(1, 5).derived("the GPU's data-centre default")
        .help("power usage effectiveness of the facility"),
    Row("energy.grid_gco2_per_kwh", F::number).bind(REF(energy.grid_gco2_per_kwh)).range(0, 5000)
        .derived("none: no carbon figure").help("grid carbon intensity, g CO2e per kWh"),
    Row("energy.host_w_per_gpu", F::number).bind(REF(energy.host_w_per_gpu)).range(0, 10000)
        .derived("the node's share from the catalog").help("host power (CPUs, memory, NICs) per GPU in W"),

    section("low_precision", "GEMMs a recipe keeps in BF16 while the policy's others run FP8/FP4"),
    Row("low_precision.bf16_first_layers", F::integer).bind(REF(low_precision.bf16_first_layers)).range(0, 100'000)
        .help("first blocks of the main stack kept in BF16"),
    Row("low_precision.bf16_last_layers", F::integer).bind(REF(low_precision.bf16_last_layers)).range(0, 100'000)
        .help("last blocks of the main stack kept in BF16"),
    Row("low_precision.bf16_modules", F::choice_list).bind(REF(low_precision.bf16_modules)).choices(low_precision_module_names())
        .noun("module").help("modules kept in BF16 by name"),

    Row("mtp_depth", F::integer).bind(REF(mtp_depth)).range(1, 64)
        .derived("one per MTP module of the model").help("multi-token prediction depths run per step"),
  };
}

#undef REF

}  // namespace

std::vector<JobField> build_job_field_table() {
  std::vector<JobField> table;
  for (auto rows : {model_rows, cluster_and_run_rows, parallel_rows, finetune_and_sequence_rows, stack_rows,
                    memory_and_energy_rows})
    for (auto& row : rows()) table.push_back(std::move(row));
  return table;
}

}  // namespace ptp::predict::detail
