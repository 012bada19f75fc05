#include "ptp/vocab/op_class.hpp"

namespace ptp::vocab {

const EnumNames<OpClass>& op_class_names() {
  static const EnumNames<OpClass> names = {
      {OpClass::gemm, "gemm", "a matrix multiply (cuBLAS/cuBLASLt, CUTLASS, DeepGEMM)"},
      {OpClass::batched_gemm, "batched_gemm", "independent GEMMs in one launch (attention's QK^T and PV)"},
      {OpClass::conv_fwd, "conv_fwd", "a convolution's forward (cuDNN)"},
      {OpClass::conv_bwd_data, "conv_bwd_data", "a convolution's input gradient"},
      {OpClass::conv_bwd_filter, "conv_bwd_filter", "a convolution's weight gradient"},
      {OpClass::elementwise, "elementwise", "one pass over its elements (activations, adds, dropout)"},
      {OpClass::layernorm, "layernorm", "a layer or RMS norm"},
      {OpClass::softmax, "softmax", ""},
      {OpClass::reduction, "reduction", "a sum or norm over its elements"},
      {OpClass::embedding, "embedding", "a table lookup"},
      {OpClass::optimizer, "optimizer", "an optimizer step over the parameters"},
      {OpClass::loss_scale, "loss_scale", "dynamic loss scaling's inf/NaN check and unscale"},
      {OpClass::cast, "cast", "a dtype conversion"},
      {OpClass::memcpy, "memcpy", "a copy"},
  };
  return names;
}

bool is_gemm_class(OpClass c) {
  switch (c) {
    case OpClass::gemm:
    case OpClass::batched_gemm:
      return true;
    case OpClass::conv_fwd:
    case OpClass::conv_bwd_data:
    case OpClass::conv_bwd_filter:
    case OpClass::elementwise:
    case OpClass::layernorm:
    case OpClass::softmax:
    case OpClass::reduction:
    case OpClass::embedding:
    case OpClass::optimizer:
    case OpClass::loss_scale:
    case OpClass::cast:
    case OpClass::memcpy:
      return false;
  }
  return false;
}

}  // namespace ptp::vocab
