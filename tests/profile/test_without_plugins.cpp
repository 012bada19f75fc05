// ptp-profile keeps CUDA, cuDNN, NCCL, CUPTI and MPI in plugins it loads only when a run needs them
// (plugins.hpp): its own linkage names none of them, and a copy of the binary with no plugin next to
// it still answers --help, --version and list, refuses bad input, and plans a host sweep.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "test_helpers.hpp"

namespace fs = std::filesystem;

namespace {

struct Result {
  int exit_code = -1;
  std::string out, err;
};

Result run(const fs::path& dir, const std::string& args) {
  const std::string cmd = "cd '" + dir.string() + "' && ./ptp-profile " + args + " >out.txt 2>err.txt";
  const int status = std::system(cmd.c_str());
  Result r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, ptp_test::read_text(dir / "out.txt"),
           ptp_test::read_text(dir / "err.txt")};
  fs::remove(dir / "out.txt");
  fs::remove(dir / "err.txt");
  return r;
}

std::string command_output(const std::string& cmd) {
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    std::array<char, 4096> buf{};
    while (const std::size_t n = std::fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
    ::pclose(p);
  }
  return out;
}

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("ptp-profile itself links no GPU or MPI library", "[plugins][binary]") {
  const std::string ldd = command_output("ldd '" + std::string(PTP_PROFILE_EXE) + "' 2>&1");
  INFO(ldd);
  REQUIRE(ldd.find("libc.so") != std::string::npos);  // ldd ran
  for (const char* lib : {"libcuda", "libcublas", "libcudnn", "libnccl", "libcupti", "libnvperf", "libmpi"})
    CHECK(ldd.find(lib) == std::string::npos);
}

TEST_CASE("ptp-profile without its plugins: help, version, list, refusals and host plans work", "[plugins][binary]") {
  const fs::path dir = ptp_test::temp_dir("no-plugins");
  fs::copy_file(PTP_PROFILE_EXE, dir / "ptp-profile");
  const std::string src = PTP_SOURCE_DIR;

  const Result help = run(dir, "--help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("--backend") != std::string::npos);

  const Result version = run(dir, "--version");
  CHECK(version.exit_code == 0);
  CHECK(version.out.rfind("ptp-profile ", 0) == 0);

  const Result list = run(dir, "list");
  INFO(list.err);
  CHECK(list.exit_code == 0);
  CHECK(list.out.find("host_membw  [host, ops]") != std::string::npos);
#ifdef PTP_TEST_HAVE_CUDA
  CHECK(lines(list.err) == 1);  // the CUDA plugin is missing: said once, naming it
  CHECK(list.err.find("libptp_profile_cuda.so") != std::string::npos);
#endif

  const Result refused = run(dir, "ingest-nccl-tests '" + src + "/tests/hostile/nccl/time-negative.txt'" +
                                       " --gpu a100-sxm4-80gb --ranks 16 --out rows.csv");
  INFO(refused.err);
  CHECK(refused.exit_code == 2);
  CHECK(lines(refused.err) == 1);
  CHECK(refused.err.find("time must be positive") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "rows.csv"));

  const Result plan = run(dir, "--backend host --plan '" + src + "/configs/sweeps/host-smoke.yaml'");
  INFO(plan.err);
  CHECK(plan.exit_code == 0);
  CHECK(plan.out.find("# total:") != std::string::npos);

#ifdef PTP_TEST_HAVE_CUDA
  const Result cuda = run(dir, "--backend cuda --plan --gpu a100-sxm4-80gb '" + src + "/configs/sweeps/full.yaml'");
  INFO(cuda.err);
  CHECK(cuda.exit_code == 2);
  CHECK(lines(cuda.err) == 1);
  CHECK(cuda.err.rfind("ptp-profile: error: --backend cuda: cannot load " + (fs::canonical(dir) / "libptp_profile_cuda.so").string(), 0) == 0);
#else
  // A build without CUDA plans a GPU sweep (the catalog GPU's rates, no device) and refuses to run it.
  const Result cuda = run(dir, "--backend cuda --plan --gpu a100-sxm4-80gb '" + src + "/configs/sweeps/full.yaml'");
  INFO(cuda.err);
  CHECK(cuda.exit_code == 0);
  CHECK(cuda.out.find("# plan for ") == 0);
  CHECK(cuda.out.find("this build has no CUDA backend") != std::string::npos);
  CHECK(cuda.out.find("  a100-sxm4-80gb/cublaslt_gemm/accum=fp32/dtype=bf16/") != std::string::npos);
  CHECK(cuda.out.find("  a100-sxm4-80gb/nccl_all_reduce/") != std::string::npos);
  CHECK(cuda.out.find("GPU-minutes on a100-sxm4-80gb") != std::string::npos);
  const Result job = run(dir, "--backend cuda --plan --gpu h100-sxm5-80gb --from-job '" + src +
                                  "/configs/jobs/llama3-70b-fp8-256xh100.yaml'");
  INFO(job.err);
  CHECK(job.exit_code == 0);
  CHECK(job.out.find("  h100-sxm5-80gb/cublaslt_gemm/accum=fp32/dtype=fp8_e4m3/") != std::string::npos);
  CHECK(job.out.find("skipped") == std::string::npos);  // the cuda backend runs every dtype
  const Result no_gpu = run(dir, "--backend cuda --plan '" + src + "/configs/sweeps/full.yaml'");
  CHECK(no_gpu.exit_code == 2);
  CHECK(lines(no_gpu.err) == 1);
  CHECK(no_gpu.err.find("needs --gpu ID") != std::string::npos);
  const Result running = run(dir, "--backend cuda --gpu a100-sxm4-80gb --out rows '" + src + "/configs/sweeps/full.yaml'");
  CHECK(running.exit_code == 2);
  CHECK(lines(running.err) == 1);
  CHECK(running.err.rfind("ptp-profile: error: --backend cuda: this ptp-profile was built without CUDA", 0) == 0);
  CHECK_FALSE(fs::exists(dir / "rows.ops.csv"));
#endif
  fs::remove_all(dir);
}
