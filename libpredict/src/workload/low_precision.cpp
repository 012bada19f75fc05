// Which GEMMs stay in 16 bits under an FP8/FP4 policy. Recipes exempt whole blocks at the ends of
// the stack (Megatron's first/last BF16 layers: the layers most sensitive to quantisation error) and
// modules matched by name (Transformer Engine quantization configs, Megatron's
// keep_mtp_spec_in_bf16). The flag is set whatever the precision: op_math_mode reads it only when
// the policy's GEMMs are narrower than 16 bits, so a workload serves every precision of a search.
#include <algorithm>
#include <cctype>
#include <vector>

#include "ptp/predict/workload_transforms.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The transformer family names MTP modules' ops mtp<i>.* and main-stack blocks' layer<i>.*.
bool in_mtp_module(const Op& op) { return op.name.compare(0, 3, "mtp") == 0; }

// Index of a main-stack block from its op's name ("layer12.mlp_up" -> 12), -1 for ops elsewhere.
int main_block_of(const std::string& name) {
  static const std::string tag = "layer";
  if (name.compare(0, tag.size(), tag) != 0) return -1;
  std::size_t i = tag.size();
  int index = 0;
  bool digits = false;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) {
    if (index > 100'000'000) return -1;  // no model has that many blocks; stops an overflow
    index = index * 10 + (name[i++] - '0');
    digits = true;
  }
  return digits && i < name.size() && name[i] == '.' ? index : -1;
}

// The modules low_precision.bf16_modules names: what each covers and which ops it matches.
struct ModuleMatcher {
  const char* name;
  const char* covers;
  bool (*matches)(const Op& op);
};
const std::vector<ModuleMatcher>& module_matchers() {
  static const std::vector<ModuleMatcher> table{
      {"attention", "attention projections (QKV, output)",
       [](const Op& op) { return op.projection == Projection::attention; }},
      {"mlp", "MLP and expert projections", [](const Op& op) { return op.projection == Projection::mlp; }},
      {"moe_latent", "LatentMoE's down/up projections around the experts",
       [](const Op& op) { return ends_with(op.name, "moe_latent_down") || ends_with(op.name, "moe_latent_up"); }},
      {"mamba", "Mamba-2 input and output projections",
       [](const Op& op) { return ends_with(op.name, "mamba_in_proj") || ends_with(op.name, "mamba_out_proj"); }},
      {"mtp", "every GEMM of the multi-token prediction modules", [](const Op& op) { return in_mtp_module(op); }},
      {"lm_head", "the output head (and the MTP modules' heads)",
       [](const Op& op) { return ends_with(op.name, "lm_head"); }}};
  return table;
}

}  // namespace

bool in_module(const Op& op, const std::string& module) {
  for (const auto& m : module_matchers())
    if (module == m.name) return m.matches(op);
  return false;
}

int main_stack_blocks(const Workload& w) {
  int last = -1;
  for (const Op& op : w.ops) last = std::max(last, main_block_of(op.name));
  return last + 1;
}

bool has_mtp_module(const Workload& w) {
  for (const Op& op : w.ops)
    if (in_mtp_module(op)) return true;
  return false;
}

const std::vector<std::pair<std::string, std::string>>& low_precision_modules() {
  static const std::vector<std::pair<std::string, std::string>> modules = [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& m : module_matchers()) out.emplace_back(m.name, m.covers);
    return out;
  }();
  return modules;
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

}  // namespace ptp::predict
