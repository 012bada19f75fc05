#include <catch2/catch.hpp>

#include <sstream>

#include "ptp/profile/busbw.hpp"
#include "ptp/profile/commands.hpp"
#include "ptp/profile/nccl_tests_ingest.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/dataset_schema.hpp"
#include "ptp/vocab/error.hpp"
#include "test_helpers.hpp"

using namespace ptp::profile;

namespace {
const std::string kFixture = std::string(PTP_TEST_DATA_DIR) + "/profile/nccl_tests_allreduce_a3mega_16gpu.txt";
}

TEST_CASE("ingest the reconstructed A3 Mega all_reduce log", "[ingest]") {
  IngestOptions opt;
  opt.gpu = "h100-sxm5-80gb";
  opt.ranks = 16;
  opt.nodes = 2;
  opt.fabric_inter = "gcp-a3-mega";
  const auto res = ingest_nccl_tests(ptp_test::read_text(kFixture), "fixture", opt);
  REQUIRE(res.rows.size() == 62);  // 31 sizes x (out-of-place, in-place)
  const Row& big = res.rows[60];    // 8 GiB, out of place
  CHECK(big.at("collective") == "all_reduce");
  CHECK(big.at("size_bytes") == "8589934592");
  CHECK(big.at("dtype") == "fp32");
  CHECK(big.at("in_place") == "0");
  CHECK(big.at("ranks_per_node") == "8");
  CHECK(std::stod(big.at("time_s")) == Approx(47535.0e-6));
  CHECK(big.at("busbw_GBps") == "338.82");
  CHECK(big.at("status") == "ok");
  // Every published busbw/algbw pair follows the nccl-tests all_reduce factor (rounding aside).
  for (const auto& r : res.rows) {
    const double size = std::stod(r.at("size_bytes")), t = std::stod(r.at("time_s"));
    CHECK(busbw_GBps("all_reduce", 16, size, t) == Approx(std::stod(r.at("busbw_GBps"))).margin(0.011).epsilon(0.01));
  }
  CHECK(res.rows[1].at("point_id") == "h100-sxm5-80gb/nccl-tests/all_reduce/dtype=fp32/in_place=1/nodes=2/ranks=16/size=8");
}

TEST_CASE("ingest counts rank lines, reads the NCCL version and flags #wrong", "[ingest]") {
  // Synthetic text in the nccl-tests layout (values made up for the parser test, not a measurement).
  const std::string log = R"(# nThread 1 nGpus 1 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20
#  Rank  0 Group  0 Pid   1 on host-a device  0 [0x07] GPU-A
#  Rank  1 Group  0 Pid   2 on host-a device  1 [0x0b] GPU-A
# NCCL version 2.18.5+cuda12.2
#       size         count      type   redop     time   algbw   busbw #wrong     time   algbw   busbw #wrong
        1024           512      half    none     10.0    0.10    0.05      0     10.0    0.10    0.05      0
        2048          1024      half    none     20.0    0.10    0.05      3     20.0    0.10    0.05      0
)";
  IngestOptions opt;
  opt.gpu = "a100-sxm4-80gb";
  opt.collective = "all_gather";
  const auto res = ingest_nccl_tests(log, "synthetic.log", opt);
  CHECK(res.ranks == 2);
  CHECK(res.nccl_version == "2.18.5+cuda12.2");
  REQUIRE(res.rows.size() == 4);
  CHECK(res.rows[0].at("dtype") == "fp16");
  CHECK(res.rows[2].at("status") == "failed");
  CHECK(res.rows[2].at("reason") == "nccl-tests reported #wrong=3");
  CHECK_THROWS_WITH(ingest_nccl_tests(log + "4096 2048 half none 1 2\n", "bad.log", opt), Catch::Contains("bad.log:8"));
  opt.gpu.clear();
  CHECK_THROWS_WITH(ingest_nccl_tests(log, "x.log", opt), Catch::Contains("--gpu"));
}

TEST_CASE("ingest command writes schema rows and appends without duplicates", "[ingest]") {
  const auto dir = ptp_test::temp_dir("ingest");
  const std::string out = (dir / "c.collectives.csv").string();
  IngestOptions opt;
  opt.gpu = "h100-sxm5-80gb";
  opt.ranks = 16;
  opt.nodes = 2;
  std::ostringstream unused;
  CHECK(ingest_nccl_tests_command(kFixture, opt, out, unused) == 62);
  CHECK(ingest_nccl_tests_command(kFixture, opt, out, unused) == 62);  // second time: ids already present
  const auto table = ptp::vocab::CsvTable::read_file(out);
  table.require_columns(ptp::vocab::collectives_schema().required_names());
  CHECK(table.rows().size() == 62);
  std::ostringstream csv;
  ingest_nccl_tests_command(kFixture, opt, "", csv);
  CHECK(ptp::vocab::CsvTable::parse(csv.str(), "stdout").rows().size() == 62);
}
