#pragma once
// How an FP8 training stack scales its GEMM operands, one table (fp8_recipe.cpp). Per-tensor scaling
// (Transformer Engine's delayed and current scaling, torchao's tensorwise, MXFP8 blocks on Blackwell)
// reaches the FP8 tensor-core rate; PyTorch's row-wise scaled GEMM did not, and row-wise scales
// along one axis cannot serve the transposed GEMMs of the backward pass. A new recipe is one entry.
#include <string>
#include <string_view>
#include <vector>

namespace ptp::vocab {

struct Fp8Recipe {
  std::string id;           // job-spec name: fp8_recipe
  std::string description;  // which stacks run it
  std::string source;       // why it is modelled as it is
  // The scaled GEMMs run no faster than the 16-bit ones (the FP8 rate is not reached).
  bool gemms_at_16bit_rate;
  // Each backward GEMM casts its operands along its own reduction axis: the weight and the saved
  // input are cast again, the output gradient twice, instead of transposed FP8 copies.
  bool backward_recasts_operands;
};

const std::vector<Fp8Recipe>& fp8_recipe_table();
const Fp8Recipe* find_fp8_recipe(std::string_view id);
std::vector<std::string> fp8_recipe_ids();

// The recipe of a job that names none.
inline constexpr std::string_view kDefaultFp8Recipe = "tensorwise";

}  // namespace ptp::vocab
