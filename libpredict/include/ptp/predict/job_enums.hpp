#pragma once
// The job spec's enum-valued fields, each with its name table (enum_names.hpp): the names a job file,
// --set, --sweep and a search space write, and what each means. The field table (job_fields.hpp)
// reads these tables for parsing, did-you-mean errors and the job-spec reference.
#include "ptp/vocab/enum_names.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

// The framework the job runs on; it sets launch overheads, the default activation layout and graph
// compilation (JAX).
enum class Framework { pytorch, tensorflow, jax, mxnet, paddle };
const EnumNames<Framework>& framework_names();

enum class Optimizer { sgd, momentum, adam, adamw, lamb };
const EnumNames<Optimizer>& optimizer_names();
// Optimizer state tensors per parameter (SGD none, momentum one, Adam/AdamW/LAMB two).
int optimizer_state_tensors(Optimizer o);
// Kernels PyTorch's single-tensor update (foreach=False) launches per parameter tensor.
int optimizer_kernels_per_tensor(Optimizer o);

// The activation layout of convolutions; unset, the framework's default (channels_first()).
enum class MemoryFormat { nchw, nhwc };
const EnumNames<MemoryFormat>& memory_format_names();

enum class FinetuneMethod { full, lora, qlora };
const EnumNames<FinetuneMethod>& finetune_method_names();

// Which projections get LoRA adapters.
enum class LoraTarget { attention, attention_qkv, mlp, all };
const EnumNames<LoraTarget>& lora_target_names();

// How many adapter modules a fused projection carries.
enum class AdapterModules { per_projection, fused_qkv, fused };
const EnumNames<AdapterModules>& adapter_modules_names();

enum class AttentionMask { causal, document };
const EnumNames<AttentionMask>& attention_mask_names();

// When data-parallel gradients are reduced under gradient accumulation.
enum class GradSync { micro_batch, step };
const EnumNames<GradSync>& grad_sync_names();

// The dtypes memory.grad_dtype and memory.optimizer_dtype may store the training state in.
const std::vector<std::string>& state_dtype_names();

}  // namespace ptp::predict
