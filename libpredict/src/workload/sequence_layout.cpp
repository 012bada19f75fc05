// Unpadded and packed sequences. A sequence of seq_len slots holding a real tokens (unpadded data
// run through a padding-free path: FlashAttention varlen, NVIDIA's unpadded BERT, HF's
// DataCollatorWithFlattening) does a / seq_len of the per-token work and (a / seq_len)^2 of the
// attention. Documents of mean length a packed into seq_len with a document mask keep every token
// (the per-token work stays) and attend only within their document: seq_len / a blocks of a x a,
// a / seq_len of the full attention. Stashed activations keep the padded shapes: frameworks
// allocate for the longest sequence of the batch.
#include "ptp/predict/workload_transforms.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {


double real_tokens_per_sequence(const JobSpec& j) {
  const auto& s = j.sequences;
  return s.avg_seq_len > 0 && !s.packing ? s.avg_seq_len : j.seq_len;
}

void apply_sequence_layout(Workload& w, const SequenceLayoutSpec& s, int seq_len) {
  if (seq_len <= 0 || s.avg_seq_len <= 0) return;
  const double share = s.avg_seq_len / seq_len;
  const bool unpadded = !s.packing;
  const bool documents = s.packing && s.attention_mask == AttentionMask::document;
  if (!unpadded && !documents) return;  // packed under one causal mask: every slot works, as padded
  const double token = unpadded ? share : 1.0;
  const double scores = unpadded ? share * share : share;
  for (Op& op : w.ops) {
    const double f = op.on_scores ? scores : token;
    op.fwd_flops *= f;
    op.bwd_flops *= f;
    if (op.kind == OpKind::fused_attention) {
      // The kernel runs per sequence (document): q and kv lengths are the real ones.
      if (documents) op.batch *= 1 / share;
      op.m *= share;
      op.n *= share;
      op.elements_in *= token;
      op.elements_out *= token;
      continue;
    }
    if (op.state_space_scan) {
      op.batch *= token;  // fixed-length chunks, fewer of them over fewer tokens
    } else if (op.kind == OpKind::attention_bmm) {
      if (documents) op.batch *= 1 / share;
      op.m *= share;
      // Scores are q x keys (n), the context q x head_dim summed over keys (k).
      if (op.n == seq_len) op.n *= share;
      else if (op.k == seq_len) op.k *= share;
    } else if (op.kind == OpKind::gemm) {
      op.m *= token;
    }
    op.elements_in *= f;
    op.elements_out *= f;
    op.traffic.scale(f);
  }
}

}  // namespace ptp::predict
