// Which GEMMs stay in 16 bits under an FP8/FP4 policy. Recipes exempt whole blocks at the ends of
// the stack (Megatron's first/last BF16 layers: the layers most sensitive to quantisation error) and
// modules matched by name (Transformer Engine quantization configs, Megatron's
// keep_mtp_spec_in_bf16). The flag is set whatever the precision: op_math_mode reads it only when
// the policy's GEMMs are narrower than 16 bits, so a workload serves every precision of a search.
#include <cctype>

#include "ptp/predict/workload_transforms.hpp"

namespace ptp {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Index of a main-stack block from its op's name ("layer12.mlp_up" -> 12), -1 for ops elsewhere.
int main_block_of(const std::string& name) {
  static const std::string tag = "layer";
  if (name.compare(0, tag.size(), tag) != 0) return -1;
  std::size_t i = tag.size();
  int index = 0;
  bool digits = false;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) {
    index = index * 10 + (name[i++] - '0');
    digits = true;
  }
  return digits && i < name.size() && name[i] == '.' ? index : -1;
}

bool in_module(const Op& op, const std::string& module) {
  if (module == "attention") return op.projection == Projection::attention;
  if (module == "mlp") return op.projection == Projection::mlp;
  if (module == "moe_latent") return ends_with(op.name, "moe_latent_down") || ends_with(op.name, "moe_latent_up");
  if (module == "mamba") return ends_with(op.name, "mamba_in_proj") || ends_with(op.name, "mamba_out_proj");
  if (module == "mtp") return op.name.compare(0, 3, "mtp") == 0;
  if (module == "lm_head") return ends_with(op.name, "lm_head");
  return false;
}

}  // namespace

int main_stack_blocks(const Workload& w) {
  int last = -1;
  for (const Op& op : w.ops) last = std::max(last, main_block_of(op.name));
  return last + 1;
}

bool has_mtp_module(const Workload& w) {
  for (const Op& op : w.ops)
    if (op.name.compare(0, 3, "mtp") == 0) return true;
  return false;
}

void apply_low_precision(Workload& w, const LowPrecisionSpec& s) {
  if (!s.any()) return;
  const int blocks = main_stack_blocks(w);
  for (Op& op : w.ops) {
    if (op.kind != OpKind::gemm || !op.uses_gemm_math) continue;
    const int block = main_block_of(op.name);
    bool keep = block >= 0 && (block < s.bf16_first_layers || block >= blocks - s.bf16_last_layers);
    for (const auto& m : s.bf16_modules) keep = keep || in_module(op, m);
    if (keep) op.high_precision = true;
  }
}

}  // namespace ptp
