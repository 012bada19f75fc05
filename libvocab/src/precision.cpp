#include "ptp/vocab/precision.hpp"

#include "ptp/vocab/enum_names.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/suggest.hpp"

namespace ptp::vocab {

const std::vector<PrecisionPolicy>& precision_table() {
  // Sources of the policies: PyTorch autocast op lists (FP32 for norms, softmax, losses), NVIDIA
  // mixed-precision training guide (FP32 master weights, dynamic loss scaling), Megatron-LM/
  // Transformer Engine (BF16 params + FP32 main params/grads; FP8 GEMMs with per-tensor scaling,
  // attention BMMs in BF16), NGC containers (TF32 for "FP32" on sm_80+).
  static const std::vector<PrecisionPolicy> table = {
      // id        description
      {"fp32", "true FP32 math on CUDA cores", "fp32", "fp32", "fp32",
       4, 4, 4, 4, 4, false, false, false, false, false, 0, "fp32", false, "bf16", "fp32"},
      {"tf32", "FP32 storage, TF32 tensor-core GEMMs/convolutions", "tf32", "tf32", "fp32",
       4, 4, 4, 4, 4, false, false, false, true, false, 80, "fp32", false, "bf16", "tf32"},
      {"fp16", "pure FP16 training with FP32 master weights and loss scaling", "fp16", "fp16",
       "fp16_nontensor", 2, 2, 2, 2, 2, false, true, false, true, true, 60, "fp16", false, "fp16", "fp16_bf16"},
      {"bf16", "pure BF16 training (BF16 params/grads, FP32 master weights)", "bf16", "bf16", "bf16",
       2, 2, 2, 2, 2, false, false, false, true, true, 80, "bf16", false, "bf16", "fp16_bf16"},
      {"amp_fp16", "autocast FP16 with FP32 weights, FP32 layer norms/softmax (batch norm at FP16), dynamic loss scaling", "fp16",
       "fp16", "fp16_nontensor", 2, 2, 4, 2.5, 4, true, true, false, true, true, 60, "fp32", true, "fp16", "fp16_bf16"},
      {"amp_bf16", "autocast BF16 with FP32 weights, FP32 layer norms/softmax (batch norm at BF16)", "bf16", "bf16", "bf16",
       2, 2, 4, 2.5, 4, true, false, false, true, true, 80, "fp32", true, "bf16", "fp16_bf16"},
      {"fp8", "FP8 GEMMs (scaled as fp8_recipe says, per tensor by default), BF16 elsewhere, FP32 master weights", "fp8", "bf16",
       "bf16", 1.5, 2, 2, 2, 2, false, false, true, true, true, 89, "bf16", false, "bf16", "fp8"},
      {"fp4", "FP4 (NVFP4/MXFP4) GEMMs with block scaling, BF16 elsewhere", "fp4", "bf16", "fp8",
       1.25, 2, 2, 2, 2, false, false, true, true, true, 100, "bf16", false, "bf16", "fp4"},
  };
  return table;
}

const PrecisionPolicy* find_precision_policy(std::string_view id) { return find_by_id(precision_table(), id); }

std::vector<std::string> precision_ids() { return ids_of(precision_table()); }

const PrecisionPolicy& precision_policy(std::string_view id) {
  if (const auto* p = find_precision_policy(id)) return *p;
  throw InputError("unknown precision '" + std::string(id) + "'" + did_you_mean(std::string(id), precision_ids()) +
                   "; expected one of " + joined_names(precision_ids()));
}

double dtype_bytes(std::string_view dtype) {
  if (dtype == "fp32" || dtype == "tf32" || dtype == "float32" || dtype == "int32") return 4;
  if (dtype == "fp16" || dtype == "bf16" || dtype == "float16" || dtype == "bfloat16") return 2;
  if (dtype == "fp8" || dtype == "fp8_e4m3" || dtype == "fp8_e5m2" || dtype == "int8") return 1;
  if (dtype == "fp4") return 0.5;
  if (dtype == "fp64" || dtype == "int64") return 8;
  throw InputError("unknown dtype '" + std::string(dtype) + "'");
}

}  // namespace ptp::vocab
