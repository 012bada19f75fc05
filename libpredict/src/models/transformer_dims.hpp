#pragma once
// A transformer stack's dimensions as its zoo YAML states them (transformer_family.cpp builds the op
// graph from them; transformer_dims.cpp reads and checks them). Private to libpredict's models.
#include <map>
#include <string>

#include "ptp/vocab/yaml_reader.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

struct TransformerDims {
  std::string kind;  // encoder | decoder-only | encoder-decoder
  int enc_layers = 0, dec_layers = 0;
  double hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, vocab = 0, max_positions = 0, type_vocab = 0;
  std::string activation, norm, positions, attention, head;
  bool bias = true, qkv_bias = true, tie_embeddings = true, dropout = true, share_embeddings = true;
  bool embedding_norm = false;  // a norm over the summed embeddings before the first block
  // Sliding-window attention (Mistral, Gemma 2/3, Starcoder2): each query sees the last
  // sliding_window keys; with global_every = N every Nth block attends to the whole sequence.
  double sliding_window = 0;
  int global_every = 0;
  // Gemma 2's soft caps, cap * tanh(x / cap), on the attention scores and on the final logits (HF
  // attn_logit_softcapping, final_logit_softcapping); 0: none. Each tanh keeps its output for backward.
  double attention_softcap = 0, logit_softcap = 0;
  double token_table_params = -1;  // adaptive input embeddings: smaller than vocab x hidden
  double head_vocab = 0, head_fraction = 1, num_classes = 0, mem_len = 0, tgt_ratio = 1;
  double image = 0, patch = 0, channels = 3;
  std::map<int, std::string> head_by_seq_len;
  // Mixture of experts: the MLP of every block from first_dense_layers on routes each token to
  // experts_per_token of num_experts experts (expert_ffn wide), plus optional always-on shared experts.
  double num_experts = 0, experts_per_token = 0, expert_ffn = 0, shared_expert_ffn = 0;
  // LatentMoE (Nemotron 3 Super): routed experts work at this width, between a down-projection
  // from hidden after the router and an up-projection back; 0: experts work at hidden.
  double expert_latent = 0;
  int first_dense_layers = 0, mtp_layers = 0;
  // Multi-head latent attention (DeepSeek-V2/V3): low-rank q and kv projections, decoupled RoPE.
  bool mla = false;
  double q_lora_rank = 0, kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  // Hybrid stacks (HF NemotronH `hybrid_override_pattern`): one letter per layer, M a Mamba-2 mixer,
  // * self-attention, - a dense MLP, E a routed MLP. Empty: every layer is attention + MLP.
  std::string hybrid_pattern, mtp_pattern;  // mtp_pattern: the layers of each MTP module of a hybrid stack
  // Mamba-2 mixer (HF mamba_num_heads, mamba_head_dim, ssm_state_size, n_groups, conv_kernel, chunk_size).
  double mamba_heads = 0, mamba_head_dim = 0, mamba_state = 0, mamba_groups = 0, mamba_conv_kernel = 0, mamba_chunk = 0;
};

// The dimensions of a `family: transformer` model entry, each checked against its range.
TransformerDims read_transformer_dims(const YamlReader& p);

}  // namespace ptp::predict
