// The math-mode table: every math the precision table and the GPU catalog name is in it, and what
// readers used to infer from a math's name is its entries'.
#include <catch2/catch.hpp>

#include <filesystem>

#include "ptp/vocab/error.hpp"
#include "ptp/vocab/hardware.hpp"
#include "ptp/vocab/math_mode.hpp"
#include "ptp/vocab/precision.hpp"
#include "ptp/vocab/yaml_reader.hpp"

using namespace ptp::vocab;

TEST_CASE("every math a precision policy names is a math mode", "[math_mode]") {
  for (const auto& p : precision_table()) {
    INFO(p.id);
    for (const auto* math : {&p.gemm_math, &p.attention_math, &p.fallback_math}) CHECK(find_math_mode(*math) != nullptr);
  }
}

TEST_CASE("every math a GPU catalog entry rates is a math mode", "[math_mode]") {
  const auto dir = std::filesystem::path(PTP_SOURCE_DIR) / "configs" / "gpus";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    const auto doc = YamlReader::load_file(entry.path().string());
    INFO(entry.path().filename().string());
    for (const auto& kv : doc.node()["peak_tflops"]) CHECK(find_math_mode(kv.first.as<std::string>()) != nullptr);
  }
  CHECK(files > 10);
}

TEST_CASE("math modes say what their names used to", "[math_mode]") {
  CHECK(math_mode("fp32").fp32_simt());
  CHECK_FALSE(math_mode("tf32").fp32_simt());
  CHECK(math_mode("tf32").tensor_core);
  CHECK_FALSE(math_mode("fp16_nontensor").tensor_core);
  CHECK_FALSE(math_mode("fp16_nontensor").fp32_simt());
  CHECK(math_mode("bf16").tensor_core_16bit());
  CHECK(math_mode("fp16").tensor_core_16bit());
  CHECK_FALSE(math_mode("fp8").tensor_core_16bit());
  // One kernel family: BF16 kernel rows and jobs are read as FP16's; every other math as itself.
  CHECK(math_mode("bf16").trains_as == "fp16");
  for (const auto& m : math_mode_table()) {
    INFO(m.id);
    REQUIRE(find_math_mode(m.trains_as) != nullptr);
    if (m.id != "bf16") CHECK(m.trains_as == m.id);
  }
  // The tensor-core alignment the GEMM efficiency charges a misaligned N or K against.
  CHECK(math_mode("tf32").alignment_elements == 4);
  CHECK(math_mode("bf16").alignment_elements == 8);
  CHECK(math_mode("fp8").alignment_elements == 16);
  CHECK(math_mode("fp4").alignment_elements == 16);
  CHECK_THROWS_WITH(math_mode("fp6"), Catch::Contains("unknown math mode 'fp6'") && Catch::Contains("fp16_nontensor"));
}
