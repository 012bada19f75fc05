#include "ptp/predict/job_enums.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

const EnumNames<Framework>& framework_names() {
  static const EnumNames<Framework> names = {
      {Framework::pytorch, "pytorch", ""},
      {Framework::tensorflow, "tensorflow", ""},
      {Framework::jax, "jax", "graph-compiled (XLA)"},
      {Framework::mxnet, "mxnet", ""},
      {Framework::paddle, "paddle", ""},
  };
  return names;
}

const EnumNames<Optimizer>& optimizer_names() {
  static const EnumNames<Optimizer> names = {
      {Optimizer::sgd, "sgd", "no state"},
      {Optimizer::momentum, "momentum", "one state tensor"},
      {Optimizer::adam, "adam", "two state tensors"},
      {Optimizer::adamw, "adamw", "two state tensors"},
      {Optimizer::lamb, "lamb", "two state tensors and per-layer trust-ratio norms"},
  };
  return names;
}

int optimizer_state_tensors(Optimizer o) {
  switch (o) {
    case Optimizer::sgd:
      return 0;
    case Optimizer::momentum:
      return 1;
    case Optimizer::adam:
    case Optimizer::adamw:
    case Optimizer::lamb:
      return 2;
  }
  return 2;
}

// torch/optim/sgd.py, adam.py, adamw.py with foreach=False: SGD one, momentum two (buffer, update),
// Adam/AdamW seven (two moments, weight decay, the bias-corrected denominator in three, the update),
// LAMB nine (its trust ratio).
int optimizer_kernels_per_tensor(Optimizer o) {
  switch (o) {
    case Optimizer::sgd:
      return 1;
    case Optimizer::momentum:
      return 2;
    case Optimizer::adam:
    case Optimizer::adamw:
      return 7;
    case Optimizer::lamb:
      return 9;
  }
  return 7;
}

const EnumNames<MemoryFormat>& memory_format_names() {
  static const EnumNames<MemoryFormat> names = {
      {MemoryFormat::nchw, "nchw", "channels first"},
      {MemoryFormat::nhwc, "nhwc", "channels last"},
  };
  return names;
}

const EnumNames<FinetuneMethod>& finetune_method_names() {
  static const EnumNames<FinetuneMethod> names = {
      {FinetuneMethod::full, "full", "every weight trains"},
      {FinetuneMethod::lora, "lora", "low-rank adapters on a frozen base"},
      {FinetuneMethod::qlora, "qlora", "LoRA on a 4-bit NormalFloat base"},
  };
  return names;
}

const EnumNames<LoraTarget>& lora_target_names() {
  static const EnumNames<LoraTarget> names = {
      {LoraTarget::attention, "attention", "q, k, v and the output projection"},
      {LoraTarget::attention_qkv, "attention_qkv", "q, k, v without the output projection"},
      {LoraTarget::mlp, "mlp", "the MLP projections"},
      {LoraTarget::all, "all", "attention and MLP"},
  };
  return names;
}

const EnumNames<AdapterModules>& adapter_modules_names() {
  static const EnumNames<AdapterModules> names = {
      {AdapterModules::per_projection, "per_projection", "one adapter per q, k, v, gate, up (PEFT, torchtune)"},
      {AdapterModules::fused_qkv, "fused_qkv", "one adapter for the fused q, k, v (litgpt)"},
      {AdapterModules::fused, "fused", "one adapter per fused projection (Megatron-Bridge, NeMo)"},
  };
  return names;
}

const EnumNames<AttentionMask>& attention_mask_names() {
  static const EnumNames<AttentionMask> names = {
      {AttentionMask::causal, "causal", "over the whole sequence (an encoder's full mask alike)"},
      {AttentionMask::document, "document", "attention stays inside each packed document"},
  };
  return names;
}

const EnumNames<GradSync>& grad_sync_names() {
  static const EnumNames<GradSync> names = {
      {GradSync::micro_batch, "micro_batch", "reduced after every micro-batch"},
      {GradSync::step, "step", "reduced after the last micro-batch only (FSDP no_sync)"},
  };
  return names;
}

const std::vector<std::string>& state_dtype_names() {
  static const std::vector<std::string> names{"fp32", "bf16", "fp16"};
  return names;
}

}  // namespace ptp::predict
