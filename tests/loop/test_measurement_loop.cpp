// The loop a user runs for a GPU nobody published numbers for: ptp-profile measures kernels,
// ptp-train learns from them next to the public data, ptp-predict answers differently because of
// them. Real binaries on real files.
//
// This machine has no GPU, so the kernels are measured by the host backend (OpenBLAS SGEMM on the
// CPU) and, for this test only, their `gpu` cell is relabelled to a catalog GPU that has neither
// kernel rows nor runs in the training fixture (L40S). That relabelling is synthetic: the rows are
// CPU timings standing in for "a slow GPU's" measurements; nothing here is a GPU measurement.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/run_command.hpp"

using ptp::test::binary;
using ptp::test::run_command;
using ptp::test::source_path;
namespace fs = std::filesystem;

namespace {

constexpr const char* kTargetGpu = "l40s";

// FP32 GEMMs large enough to be compute-bound on the CPU, small enough for CI (~10 s on 2 cores).
const char* kSweep = R"(name: loop-gemm
settings: {warmup: 1, min_reps: 3, max_reps: 20, rel_noise: 0.05, max_time_s: 0.3, l2_flush: false}
benchmarks:
  - bench: host_gemm
    axes:
      m: [256, 512, 1024]
      n: [512, 1024]
      k: [512, 1024]
      dtype: [fp32]
)";

const char* kJob = R"(model: gpt2
precision: fp32
batch_size: 4
seq_len: 1024
optimizer: adamw
cluster: {gpu: l40s, num_gpus: 1}
)";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The profiled rows with their gpu cell set to kTargetGpu (test-only relabelling, see above).
std::string relabelled(const std::string& csv) {
  std::istringstream in(csv);
  std::string header, line, out;
  std::getline(in, header);
  std::vector<std::string> cols;
  std::stringstream hs(header);
  for (std::string c; std::getline(hs, c, ',');) cols.push_back(c);
  const auto gpu_col = static_cast<std::size_t>(std::find(cols.begin(), cols.end(), "gpu") - cols.begin());
  REQUIRE(gpu_col < cols.size());
  out = header + "\n";
  int rows = 0;
  while (std::getline(in, line)) {
    // Host rows have no quoted commas before the gpu column (ids, numbers, dtypes).
    std::size_t start = 0;
    for (std::size_t i = 0; i < gpu_col; ++i) start = line.find(',', start) + 1;
    const auto end = line.find(',', start);
    REQUIRE(line.substr(start, end - start) == "host");
    out += line.substr(0, start) + kTargetGpu + line.substr(end) + "\n";
    ++rows;
  }
  CHECK(rows >= 10);
  return out;
}

nlohmann::json predict(const std::string& bundle, const std::string& job) {
  const auto r = run_command(binary("ptp-predict") + " " + job + " --format json --bundle " + bundle);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("profiled kernel rows reach ptp-predict's answer through ptp-train", "[loop][cli]") {
  const fs::path dir = ptp::test::temp_dir();
  std::ofstream(dir / "sweep.yaml") << kSweep;
  std::ofstream(dir / "job.yaml") << kJob;
  const auto profile = run_command(binary("ptp-profile") + " --backend host --out " + (dir / "measured").string() + " " +
                                   (dir / "sweep.yaml").string());
  REQUIRE(profile.exit_code == 0);

  // Two training sets: the public fixture, and the fixture plus the measured rows.
  const fs::path fixture = source_path("tests/data/train-fixture");
  const fs::path with_rows = dir / "data-with-measurements";
  fs::copy(fixture, with_rows, fs::copy_options::recursive);
  std::ofstream(with_rows / "ops" / "ptp-profile-host-gemm.csv") << relabelled(read(dir / "measured.ops.csv"));

  for (const auto& [data, out] : {std::pair{fixture, dir / "public"}, std::pair{with_rows, dir / "measured-bundle"}}) {
    const auto train = run_command(binary("ptp-train") + " --quiet --threads 2 --no-cv --data " + data.string() +
                                   " --out " + out.string());
    INFO(train.err);
    REQUIRE(train.exit_code == 0);
  }
  const auto before = predict((dir / "public").string(), (dir / "job.yaml").string());
  const auto after = predict((dir / "measured-bundle").string(), (dir / "job.yaml").string());
  CHECK(before["predictor"]["kind"] == "learned");
  CHECK(after["predictor"]["compute_learned_share"].get<double>() >= 0.5);
  // CPU SGEMM is orders of magnitude slower than an L40S: a live compute level must slow the job
  // down by far more than noise; a dead one (the roofline answering) would leave it unchanged.
  const double ratio = after["iteration"]["seconds"].get<double>() / before["iteration"]["seconds"].get<double>();
  CHECK(ratio > 1.4);
}
