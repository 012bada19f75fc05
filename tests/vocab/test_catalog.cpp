#include <catch2/catch.hpp>

#include "ptp/vocab/error.hpp"
#include "ptp/vocab/hardware.hpp"
#include "ptp/vocab/suggest.hpp"
#include "support/run_command.hpp"

using namespace ptp::vocab;

namespace {
const GpuCatalog& catalog() {
  static const GpuCatalog c = load_gpu_catalog(std::string(PTP_SOURCE_DIR) + "/configs/gpus");
  return c;
}
}  // namespace

TEST_CASE("the GPU catalog has every id the job spec promises", "[catalog]") {
  for (const char* id : {"v100-pcie-16gb", "v100-pcie-32gb", "v100-sxm2-16gb", "v100-sxm2-32gb", "v100-sxm3-32gb",
                         "v100-sxm3-32gb-h", "a100-pcie-40gb", "a100-pcie-80gb", "a100-sxm4-40gb", "a100-sxm4-80gb",
                         "a10", "a40", "l4", "l40s", "t4", "p100-pcie-16gb", "rtx-2080-ti", "rtx-3090", "rtx-4090",
                         "rtx-a6000", "rtx-6000-ada", "quadro-rtx-8000", "titan-rtx", "h100-pcie-80gb",
                         "h100-sxm5-80gb", "h200-sxm-141gb", "gh200-96gb", "b200-sxm-180gb"})
    CHECK(catalog().find(id) != nullptr);
}

TEST_CASE("catalog entries are spec-sheet consistent", "[catalog]") {
  for (const auto& g : catalog().all()) {
    INFO(g.id);
    CHECK(g.has_math("fp32"));
    CHECK(g.memory_bandwidth_gbs > 0);
    if (g.sm_version() < 80) {
      CHECK_FALSE(g.has_math("bf16"));
      CHECK_FALSE(g.has_math("tf32"));
    }
    if (g.sm_version() < 89) CHECK_FALSE(g.has_math("fp8"));
    if (g.has_math("fp16")) CHECK(g.peak_flops("fp16") > g.peak_flops("fp32"));
  }
  const auto& a100 = *catalog().find("a100-sxm4-80gb");
  CHECK(a100.peak_flops("fp16") == Approx(312e12));
  CHECK(a100.peak_flops("tf32") == Approx(156e12));
  CHECK(a100.sm_version() == 80);
}

TEST_CASE("published spellings resolve through aliases", "[catalog]") {
  CHECK(catalog().find("A100-SXM4-80GB")->id == "a100-sxm4-80gb");
  CHECK(catalog().find("V100-SXM3-32GB-H (450W)")->id == "v100-sxm3-32gb-h");
  CHECK(catalog().find("RTX 2080 Ti")->id == "rtx-2080-ti");
}

TEST_CASE("unknown GPU ids suggest near ids", "[catalog]") {
  try {
    catalog().get("a100-sxm4-81gb", "job.yaml: cluster.gpu: ");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("a100-sxm4-80gb") && Catch::Contains("cluster.gpu"));
  }
}

// Issue 54, item 3: a suggestion must be close (suggest.cpp: at most max(2, typed length / 3) edits,
// fewer than the typed length; a name typed in part counts half); otherwise the error says how to add
// the entry.
TEST_CASE("did-you-mean suggests only close names and otherwise says how to add the entry", "[catalog][issue54]") {
  using V = std::vector<std::string>;
  CHECK(nearest_names("mi300x", {"gb300", "b300-sxm", "h100-sxm5-80gb"}).empty());  // 3 edits of 6
  CHECK(nearest_names("a100-sxm4-81gb", {"a100-sxm4-80gb"}) == V{"a100-sxm4-80gb"});
  CHECK(nearest_names("megatorn", {"megatron", "fsdp"}) == V{"megatron"});          // a swapped pair: 2 edits
  CHECK(nearest_names("llama3", {"llama3-8b", "llama2-7b", "resnet50"}) == V{"llama3-8b"});  // typed in part
  CHECK(nearest_names("x", {"l4", "t4"}).empty());
  CHECK(nearest_names("t5", {"t4", "l40s"}) == V{"t4"});
  const auto near = nearest_names("h100-sxm5-80g", catalog().ids());
  REQUIRE_FALSE(near.empty());
  CHECK(near.front() == "h100-sxm5-80gb");
  CHECK(near.size() <= 3);

  auto error_of = [](const std::string& id) {
    try {
      catalog().get(id, "job.yaml: cluster.gpu: ");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string gpus = std::string(PTP_SOURCE_DIR) + "/configs/gpus/";
  CHECK(error_of("mi300x") == "job.yaml: cluster.gpu: unknown GPU 'mi300x': not in the catalog; add " + gpus +
                                  "mi300x.yaml (see docs/extending.md), or run ptp-predict --list gpus");
  CHECK_THAT(error_of("MI300X"), Catch::Contains("add " + gpus + "mi300x.yaml"));  // ids are lower case
  CHECK_THAT(error_of("mi300x\nx"), Catch::Contains("add " + gpus + "<id>.yaml"));  // not a file name
  // An alias is a name too, and the suggestion is its entry's id: h100x is one slip from H100.
  CHECK_THAT(error_of("h100x"), Catch::StartsWith("job.yaml: cluster.gpu: unknown GPU 'h100x' (did you mean: h100-sxm5-80gb"));
  CHECK_THAT(error_of("h100x"), !Catch::Contains("H100"));
}

TEST_CASE("a GPU file with a wrong type names file, line and field", "[catalog]") {
  const std::string dir = ptp::test::temp_dir();
  std::string text = ptp::test::slurp(std::string(PTP_SOURCE_DIR) + "/configs/gpus/t4.yaml");
  auto pos = text.find("sms: ");
  REQUIRE(pos != std::string::npos);
  text.replace(pos, text.find('\n', pos) - pos, "sms: many");
  const std::string path = dir + "/t4.yaml";
  std::ofstream(path) << text;
  try {
    parse_gpu_spec(path);
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains(path) && Catch::Contains("sms") && Catch::Contains("integer"));
  }
}

TEST_CASE("fabrics load and give node bandwidth", "[catalog]") {
  const auto fabrics = load_fabric_catalog(std::string(PTP_SOURCE_DIR) + "/configs/fabrics");
  const auto& hdr = fabrics.get("ib-hdr-200", "");
  CHECK(hdr.node_bandwidth_gbs(8) == Approx(200));
  const auto& eth = fabrics.get("eth-25", "");
  CHECK(eth.node_bandwidth_gbs(8) == Approx(3.125));  // one NIC shared by the node
}
