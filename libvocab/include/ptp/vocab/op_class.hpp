#pragma once
// The dataset's op classes (ops.csv `op_class`): what kind of kernel a row timed. One name table,
// read by the dataset schema's documentation, the training-data reader (a row naming another class
// is refused with its file:line) and the learned compute level; nothing compares class names.
#include "ptp/vocab/enum_names.hpp"

namespace ptp::vocab {

enum class OpClass {
  gemm,
  batched_gemm,
  conv_fwd,
  conv_bwd_data,
  conv_bwd_filter,
  elementwise,
  layernorm,
  softmax,
  reduction,
  embedding,
  optimizer,
  loss_scale,
  cast,
  memcpy,
};
const EnumNames<OpClass>& op_class_names();
// GEMM and batched GEMM run at a math mode; the other classes are timed as memory-bound.
bool is_gemm_class(OpClass c);

}  // namespace ptp::vocab
