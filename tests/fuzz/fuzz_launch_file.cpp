// launch: {megatron_args: FILE} and {torchtitan_toml: FILE}: both readers on the same bytes (an
// argument list, a shell script with continuations, KEY=VALUE exports, or TOML). What a reader accepts
// must be values a job field can hold, warnings of one line each, and, when the file defines the
// model by its sizes, a model YAML that builds and predicts.
#include <fstream>

#include "fuzz_common.hpp"
#include "ptp/predict/job_fields.hpp"
#include "ptp/predict/launch_import.hpp"
#include "ptp/predict/model_zoo.hpp"

namespace {

void check_read(const ptp::predict::LaunchRead& r) {
  using namespace ptp::predict;
  for (const auto& v : r.values) {
    if (!find_job_field(v.key)) ptp::fuzz::finding("a launch value for a field the table does not have: " + v.key);
    if (v.source.empty() || v.where.empty()) ptp::fuzz::finding("a launch value without its source or place: " + v.key);
  }
  for (const auto& d : r.dims)
    if (!(d.value > 0) || !std::isfinite(d.value)) ptp::fuzz::finding("a launch model size that is not positive: " + d.param);
  for (const auto& w : r.warnings)
    if (w.empty() || w.find('\n') != std::string::npos) ptp::fuzz::finding("a launch warning empty or not one line: " + w);
  if (r.model_yaml.empty()) return;
  static const GpuSpec& gpu = ptp::fuzz::catalogs().gpus().get("h100-sxm5-80gb", "");
  static const FabricSpec& fabric = ptp::fuzz::catalogs().fabrics().get("ib-ndr-400", "");
  ptp::fuzz::expect_clean("", [&] {
    const ModelDesc model = parse_model_yaml(YamlReader::load_string(r.model_yaml, r.file));
    ptp::fuzz::predict_small(model, gpu, fabric, precision_policy("amp_bf16"));
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = ptp::fuzz::text_of(data, size);
  const std::string args = ptp::fuzz::scratch_path("launch.args"), toml = ptp::fuzz::scratch_path("launch.toml");
  std::ofstream(args, std::ios::binary) << text;
  std::ofstream(toml, std::ios::binary) << text;
  ptp::fuzz::expect_clean("launch.args", [&] { check_read(ptp::predict::read_megatron_args(args)); });
  ptp::fuzz::expect_clean("launch.toml", [&] { check_read(ptp::predict::read_torchtitan_toml(toml)); });
  return 0;
}
