#include "ptp/vocab/attention_kernel.hpp"

#include "ptp/vocab/enum_names.hpp"

namespace ptp::vocab {

const std::vector<AttentionKernel>& attention_kernel_table() {
  static const std::vector<AttentionKernel> table = {
      {"flash2",
       "FlashAttention-2 class: PyTorch SDPA's flash and memory-efficient backends, flash-attn 2, FlexAttention, "
       "xFormers (torchtitan, llm-foundry, HF Transformers, litgpt, torchtune)",
       "Dao, FlashAttention-2 (2023): mma.sync kernels written for Ampere; Shah et al., FlashAttention-3 (2024) "
       "report FlashAttention-2 at about 35 % of H100 peak, where Hopper-native kernels reach about 75 %",
       false},
      {"cudnn",
       "architecture-native fused attention: cuDNN fused attention (Transformer Engine's default in Megatron-LM, "
       "NeMo, Megatron-Bridge), FlashAttention-3 on Hopper, cuDNN / FlashAttention-4 on Blackwell",
       "cuDNN frontend SDPA and FlashAttention-3 use wgmma and TMA on sm_90 (tcgen05 on sm_100)", true},
  };
  return table;
}

const AttentionKernel* find_attention_kernel(std::string_view id) { return find_by_id(attention_kernel_table(), id); }

std::vector<std::string> attention_kernel_ids() { return ids_of(attention_kernel_table()); }

}  // namespace ptp::vocab
