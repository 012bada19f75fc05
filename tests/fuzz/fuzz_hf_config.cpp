// Hugging Face config.json import: parse, map to transformer parameters, build the workload at a
// small batch and predict it on fixed hardware.
#include "fuzz_common.hpp"
#include "ptp/predict/model_zoo.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptp::predict;
  static const GpuSpec& gpu = ptp::fuzz::catalogs().gpus().get("h100-sxm5-80gb", "");
  static const FabricSpec& fabric = ptp::fuzz::catalogs().fabrics().get("ib-ndr-400", "");
  const std::string text = ptp::fuzz::text_of(data, size);
  ptp::fuzz::expect_clean("config.json", [&] {
    const ModelDesc model = import_hf_config_text(text, "config.json");
    ptp::fuzz::predict_small(model, gpu, fabric, precision_policy("amp_bf16"));
  });
  return 0;
}
