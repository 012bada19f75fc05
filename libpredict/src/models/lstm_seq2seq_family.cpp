// LSTM encoder-decoder with additive (Bahdanau) attention, GNMT v2 style (Wu et al. 2016; NVIDIA
// DeepLearningExamples PyTorch GNMT): first encoder layer bidirectional, residual connections from
// the third layer on, attention queried by the first decoder layer and its context concatenated to
// the input of every later decoder layer. A family rather than a composite because the attention
// energies are batch x target_len x source_len x hidden, quadratic in the job's seq_len.
#include <cmath>

#include "ptp/predict/model_zoo.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

void generate_lstm_seq2seq(const YamlReader& p, const BuildContext& ctx, GraphBuilder& g) {
  p.check_keys({"vocab", "hidden", "encoder_layers", "decoder_layers", "bidirectional_first", "residual_from",
                "share_embedding", "target_length_ratio", "dropout"});
  const double vocab = p.get_number("vocab", 1, 1e8);
  const double H = p.get_number("hidden", 1, 1e6);
  const auto enc_layers = p.get_int("encoder_layers", 1, 1000);
  const auto dec_layers = p.get_int("decoder_layers", 1, 1000);
  const bool bidir_first = p.get_bool("bidirectional_first", true);
  const auto residual_from = p.get_int("residual_from", 0, 1000, 2);
  const bool share = p.get_bool("share_embedding", true);
  const double ratio = p.get_number("target_length_ratio", 0.01, 100, 1);
  const bool dropout = p.get_bool("dropout", true);
  if (ctx.seq_len <= 0) p.fail("seq_len is required for this sequence model");
  const double B = ctx.batch;
  const double S = ctx.seq_len;
  const double T = std::max(1.0, std::round(S * ratio));
  constexpr double kLstmGates = 4;
  auto drop = [&](const std::string& name, double elements) {
    if (dropout) g.elementwise(name, elements, 1, 2);
  };

  g.begin_layer();
  g.set_prefix("encoder");
  g.embedding("embedding", B * S, H, vocab);
  for (std::int64_t i = 0; i < enc_layers; ++i) {
    g.begin_layer();
    g.set_prefix("encoder.lstm" + std::to_string(i));
    const bool bidir = bidir_first && i == 0;
    // The layer after the bidirectional one reads both directions' outputs.
    const double in = (bidir_first && i == 1) ? 2 * H : H;
    drop("dropout", B * S * in);
    g.rnn("lstm", B, S, in, H, kLstmGates, bidir);
    if (i >= residual_from) g.elementwise("residual", B * S * H, 2, 1);
  }

  g.begin_layer();
  g.set_prefix("decoder");
  // A shared table is owned by the encoder: count the lookups, not the rows again.
  g.embedding("embedding", B * T, H, share ? 0 : vocab);
  g.begin_layer();
  g.set_prefix("decoder.attention_lstm");
  drop("dropout", B * T * H);
  g.rnn("lstm", B, T, H, H, kLstmGates, false);
  g.begin_layer();
  g.set_prefix("decoder.attention");
  g.linear("query", B * T, H, H, false);
  g.linear("key", B * S, H, H, false);
  // tanh(q + k + b) for every (target, source) pair, then a dot with the attention vector v (the
  // GEMM's weight); the normalization scalar/bias (H + 1 parameters) are left out.
  g.elementwise("energy_add_tanh", B * T * S * H, 2, 6);
  g.linear("energy_v", B * T * S, H, 1, false);
  g.softmax("softmax", B * T * S);
  g.bmm("context", B, T, H, S);
  for (std::int64_t i = 1; i < dec_layers; ++i) {
    g.begin_layer();
    g.set_prefix("decoder.lstm" + std::to_string(i));
    drop("dropout", B * T * H);
    g.elementwise("concat_context", B * T * 2 * H, 2, 0);
    g.rnn("lstm", B, T, 2 * H, H, kLstmGates, false);
    if (i >= residual_from) g.elementwise("residual", B * T * H, 2, 1);
  }
  g.begin_layer();
  g.set_prefix("classifier");
  g.linear("logits", B * T, H, vocab, true);
  g.loss("loss", B * T, vocab);
  g.set_prefix("");
}

}  // namespace ptp::predict
