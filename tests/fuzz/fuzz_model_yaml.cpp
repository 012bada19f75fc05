// Model description YAML (configs/models/*.yaml, or a path given as `model:`): parse, build the
// workload at a small batch (2 samples, seq_len 64) and predict it on fixed hardware (A100 nodes,
// 16-way data parallel) so absurd graphs reach the analytical model and the printers.
#include "fuzz_common.hpp"
#include "ptp/predict/model_zoo.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptp::predict;
  static const GpuSpec& gpu = ptp::fuzz::catalogs().gpus().get("a100-sxm4-80gb", "");
  static const FabricSpec& fabric = ptp::fuzz::catalogs().fabrics().get("ib-hdr-200", "");
  const std::string text = ptp::fuzz::text_of(data, size);
  ptp::fuzz::expect_clean("fuzz-model.yaml", [&] {
    const ModelDesc model = parse_model_yaml(YamlReader::load_string(text, "fuzz-model.yaml"));
    const auto& policy = precision_policy(size % 2 ? "amp_bf16" : "fp32");
    ptp::fuzz::predict_small(model, gpu, fabric, policy);
  });
  return 0;
}
