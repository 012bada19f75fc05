#include "ptp/vocab/fp8_recipe.hpp"

#include "ptp/vocab/enum_names.hpp"

namespace ptp::vocab {

const std::vector<Fp8Recipe>& fp8_recipe_table() {
  static const std::vector<Fp8Recipe> table = {
      {"tensorwise",
       "one scale per tensor (or per hardware block): Transformer Engine delayed and current scaling "
       "(Megatron-LM, NeMo, Megatron-Bridge, llm-foundry), torchao float8 tensorwise (torchtitan), MXFP8 on "
       "Blackwell",
       "cuBLASLt FP8 GEMMs at the tensor cores' FP8 rate; the backward reuses transposed FP8 copies "
       "(Transformer Engine cast-transpose kernels)",
       false, false},
      {"rowwise",
       "one scale per row: torchao float8 rowwise and rowwise_with_gw_hp (torchtitan --float8.recipe_name)",
       "PyTorch's row-wise _scaled_mm is a CUTLASS kernel, slower than the cuBLAS tensor-wise one (pytorch/pytorch "
       "#147971), with slow accumulation in the gradient GEMMs; torchtitan #1207 measured it no faster than BF16. "
       "A row scale of one GEMM is a column scale of its transpose, so the backward casts its operands again",
       true, true},
  };
  return table;
}

const Fp8Recipe* find_fp8_recipe(std::string_view id) { return find_by_id(fp8_recipe_table(), id); }

std::vector<std::string> fp8_recipe_ids() { return ids_of(fp8_recipe_table()); }

}  // namespace ptp::vocab
