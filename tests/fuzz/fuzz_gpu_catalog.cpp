// GPU and fabric catalog YAML (configs/gpus/*.yaml, configs/fabrics/*.yaml): parse the input as both
// kinds (the file is named after its id, as the catalog requires), add it to a catalog, then predict a
// fixed small model on the parsed hardware under every precision policy the GPU can run.
#include <algorithm>
#include <cctype>

#include "fuzz_common.hpp"
#include "ptp/predict/model_zoo.hpp"
#include "ptp/vocab/yaml_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptp::predict;
  static const GpuSpec& ref_gpu = ptp::fuzz::catalogs().gpus().get("a100-sxm4-80gb", "");
  static const FabricSpec& ref_fabric = ptp::fuzz::catalogs().fabrics().get("ib-hdr-200", "");
  static const ModelDesc& model = ptp::fuzz::catalogs().model("bert-base");
  static const Workload workload = [] {
    BuildContext ctx;
    ctx.batch = 2;
    ctx.seq_len = 64;
    return build_workload(model, ctx);
  }();
  const std::string text = ptp::fuzz::text_of(data, size);

  // The catalog requires id == file stem; name the document after its id so parsing gets past that.
  std::string name = "fuzz.yaml";
  try {
    const auto doc = YamlReader::load_string(text, name);
    if (doc.is_map() && doc.has("id") && doc.child("id").is_scalar() && (size & 1)) {
      const std::string id = doc.child("id").as_string();
      const bool plain = std::all_of(id.begin(), id.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
      });
      if (!id.empty() && id.size() < 64 && plain) name = id + ".yaml";
    }
  } catch (const InputError& e) {
    ptp::fuzz::check_message(e.what(), name);
    return 0;
  }

  ptp::fuzz::expect_clean(name, [&] {
    GpuSpec gpu = parse_gpu_spec(YamlReader::load_string(text, name));
    GpuCatalog catalog;
    catalog.kind = "GPU";
    catalog.add(ref_gpu, "a100-sxm4-80gb.yaml");
    try {
      catalog.add(gpu, name);
    } catch (const InputError& e) {
      ptp::fuzz::check_message(e.what(), name);
    }
    for (const auto& policy : precision_table()) {
      if (gpu.sm_version() < policy.min_compute_capability) continue;
      if (policy.gemm_math == "tf32" && !gpu.has_math("tf32")) continue;
      ptp::fuzz::predict_small(model, gpu, ref_fabric, policy, &workload);
    }
  });
  ptp::fuzz::expect_clean(name, [&] {
    const FabricSpec fabric = parse_fabric_spec(YamlReader::load_string(text, name));
    ptp::fuzz::predict_small(model, ref_gpu, fabric, precision_policy("amp_fp16"), &workload);
  });
  return 0;
}
