#include <catch2/catch.hpp>

#include <set>

#include "ptp/profile/axis_values.hpp"
#include "ptp/profile/sweep.hpp"
#include "ptp/vocab/error.hpp"

using namespace ptp::profile;

namespace {
std::vector<std::string> axis(const std::string& yaml) {
  return expand_axis(ptp::vocab::YamlReader::load_string(yaml, "axis.yaml"));
}
Sweep sweep(const std::string& yaml) { return parse_sweep(yaml, "s.yaml", "host", Registry::instance()); }
}  // namespace

TEST_CASE("axes expand lists, multiplicative and additive ranges", "[sweep]") {
  CHECK(axis("[128, 256]") == std::vector<std::string>{"128", "256"});
  CHECK(axis("{range: [128, 1024], step: x2}") == std::vector<std::string>{"128", "256", "512", "1024"});
  CHECK(axis("{range: [64, 256], step: 64}") == std::vector<std::string>{"64", "128", "192", "256"});
  CHECK(axis("{range: [0.5, 1.5], step: 0.5}") == std::vector<std::string>{"0.5", "1", "1.5"});
  CHECK(axis("fp32") == std::vector<std::string>{"fp32"});
  CHECK(axis("{range: [8, 4294967296], step: x2}").size() == 30);  // nccl-tests 8 B .. 4 GiB
}

TEST_CASE("bad axes are located input errors", "[sweep]") {
  CHECK_THROWS_WITH(axis("{range: [10, 1], step: x2}"), Catch::Contains("axis.yaml:1") && Catch::Contains("below low"));
  CHECK_THROWS_WITH(axis("{range: [1, 10], step: x1}"), Catch::Contains("factor > 1"));
  CHECK_THROWS_WITH(axis("{range: [1, 10], stp: 2}"), Catch::Contains("stp"));
  CHECK_THROWS_WITH(axis("{range: [1, 100000000], step: 1}"), Catch::Contains("4096"));
}

TEST_CASE("a sweep is the Cartesian product with defaults and stable ids", "[sweep]") {
  const Sweep s = sweep(R"(
name: t
settings: {min_reps: 3, max_time_s: 0.1}
benchmarks:
  - bench: host_gemm
    axes: {m: [64, 128], n: {range: [32, 128], step: x2}, k: [16]}
  - bench: host_reduction
    axes: {elements: [1024]}
    settings: {l2_flush: true}
)");
  REQUIRE(s.points.size() == 7);
  CHECK(s.points[0].id == "host/host_gemm/dtype=fp32/k=16/m=64/n=32");
  CHECK(s.points[0].rule.min_reps == 3);
  CHECK_FALSE(s.points[0].rule.l2_flush);
  CHECK(s.points[6].rule.l2_flush);
  CHECK(s.points[6].rule.max_time_s == Approx(0.1));
  CHECK(s.points[0].work.flops == Approx(2.0 * 64 * 32 * 16));
  std::set<std::string> ids;
  for (const auto& p : s.points) ids.insert(p.id);
  CHECK(ids.size() == 7);
  // Same sweep, keys in another order: same ids.
  const Sweep t = sweep("name: t\nbenchmarks:\n  - bench: host_gemm\n    axes: {k: [16], n: [32], m: [64]}\n");
  CHECK(t.points[0].id == s.points[0].id);
}

TEST_CASE("sweep errors name the file, the place and the problem", "[sweep]") {
  CHECK_THROWS_WITH(sweep("name: t\nbenchmarks:\n  - bench: host_gem\n"),
                    Catch::Contains("s.yaml:3") && Catch::Contains("did you mean") && Catch::Contains("host_gemm"));
  CHECK_THROWS_WITH(sweep("name: t\nbenchmarks:\n  - bench: host_gemm\n    axes: {m: [1], n: [1], kk: [1]}\n"),
                    Catch::Contains("kk"));
  CHECK_THROWS_WITH(sweep("name: t\nbenchmarks:\n  - bench: host_gemm\n    axes: {m: [1], n: [1]}\n"),
                    Catch::Contains("needs axis 'k'"));
  CHECK_THROWS_WITH(sweep("name: t\nbenchmarks:\n  - bench: host_gemm\n    axes: {m: [x], n: [1], k: [1]}\n"),
                    Catch::Contains("integer"));
  CHECK_THROWS_WITH(sweep("name: t\nsettings: {rel_noize: 0.1}\nbenchmarks: []\n"), Catch::Contains("rel_noize"));
  CHECK_THROWS_AS(sweep("name: t\nbenchmarks:\n  - bench: host_gemm\n    axes: {m: [1, 1], n: [1], k: [1]}\n"),
                  ptp::vocab::InputError);
}

TEST_CASE("informative order interleaves benchmarks and spreads each range", "[sweep]") {
  const Sweep s = sweep(R"(
name: t
benchmarks:
  - bench: host_reduction
    axes: {elements: [1, 2, 3, 4, 5, 6, 7, 8]}
  - bench: host_membw
    axes: {bytes: [10, 20]}
)");
  const auto o = informative_order(s.points);
  REQUIRE(o.size() == 10);
  CHECK(o[0].id == "host/host_reduction/dtype=fp32/elements=1");
  CHECK(o[1].id == "host/host_membw/bytes=10");
  CHECK(o[2].id == "host/host_reduction/dtype=fp32/elements=5");  // the far half before the neighbours
  CHECK(o[3].id == "host/host_membw/bytes=20");
  CHECK(o[4].id == "host/host_reduction/dtype=fp32/elements=3");
  std::set<std::string> ids;
  for (const auto& p : o) ids.insert(p.id);
  CHECK(ids.size() == 10);
}
