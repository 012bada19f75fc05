// The model families a model YAML can name. A new family: one generator source file + one line here.
#include "ptp/predict/model_zoo.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

void generate_transformer(const YamlReader&, const BuildContext&, GraphBuilder&);
void generate_resnet(const YamlReader&, const BuildContext&, GraphBuilder&);
void generate_composite(const YamlReader&, const BuildContext&, GraphBuilder&);
void generate_efficientnet(const YamlReader&, const BuildContext&, GraphBuilder&);
void generate_recommender(const YamlReader&, const BuildContext&, GraphBuilder&);
void generate_lstm_seq2seq(const YamlReader&, const BuildContext&, GraphBuilder&);

const std::vector<FamilyEntry>& model_families() {
  static const std::vector<FamilyEntry> families = {
      {"transformer", generate_transformer, "encoder / decoder-only / encoder-decoder transformers, ViT"},
      {"resnet", generate_resnet, "ResNet / ResNeXt / SE-ResNeXt (v1.5), truncatable backbones"},
      {"composite", generate_composite, "explicit layer lists and compositions of families"},
      {"efficientnet", generate_efficientnet, "EfficientNet B0..B7: MBConv + SE, compound width/depth scaling"},
      {"recommender", generate_recommender, "NCF/NeuMF and DLRM: embedding tables + MLPs + interaction"},
      {"lstm_seq2seq", generate_lstm_seq2seq, "GNMT-style LSTM encoder-decoder with additive attention"},
  };
  return families;
}

}  // namespace ptp::predict
