// Drives the real ptp-profile binary: SIGKILL in the middle of a host sweep, then --resume; SIGTERM
// finishes the current point; failing points become rows. Nothing may be lost, torn or duplicated.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <thread>

#include "ptp/profile/row_writer.hpp"
#include "ptp/profile/runner.hpp"
#include "ptp/vocab/csv.hpp"
#include "test_helpers.hpp"

namespace {

// 12 points of ~0.15 s each on the host: long enough to kill in the middle.
const char* kSweep = R"(name: kill-test
settings: {warmup: 1, min_reps: 10, max_reps: 100000, rel_noise: 0, max_time_s: 0.15}
benchmarks:
  - bench: host_membw
    axes: {bytes: {range: [1048576, 11534336], step: 1048576}}
  - bench: host_gemm
    axes: {m: [64], n: [64], k: [64], dtype: [bf16]}
)";

pid_t spawn(const std::vector<std::string>& args, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Logs and --plan output go to a file so the test output stays readable.
    if (!std::freopen(log.c_str(), "a", stderr) || !std::freopen(log.c_str(), "a", stdout)) ::_exit(126);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

std::size_t data_lines(const std::string& path) {
  const std::string text = ptp_test::read_text(path);
  return text.empty() ? 0 : static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) - 1;
}

void wait_for_rows(const std::string& path, std::size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (data_lines(path) < n && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(data_lines(path) >= n);
}

// Every row complete (CSV parses, right width), ids unique; returns id -> status.
std::map<std::string, std::string> check_rows(const std::string& path) {
  const auto table = ptp::vocab::CsvTable::read_file(path);
  std::map<std::string, std::string> ids;
  for (const auto& row : table.rows()) {
    REQUIRE(row.cells.size() == table.header().size());
    const auto id = table.text(row, "point_id");
    INFO(id);
    CHECK(ids.count(id) == 0);
    ids[id] = table.text(row, "status");
    if (ids[id] == "ok") CHECK(*table.number(row, "time_s") > 0);
  }
  return ids;
}

}  // namespace

TEST_CASE("SIGKILL mid-sweep then --resume: no row lost, torn or duplicated", "[resume][binary]") {
  const auto dir = ptp_test::temp_dir("kill");
  ptp_test::write_text(dir / "sweep.yaml", kSweep);
  const std::string out = (dir / "run").string(), csv = out + ".ops.csv", log = (dir / "log.txt").string();
  const std::vector<std::string> args = {PTP_PROFILE_EXE, "--backend", "host", "--out", out,
                                         (dir / "sweep.yaml").string()};
  const pid_t first = spawn(args, log);
  wait_for_rows(csv, 4);
  ::kill(first, SIGKILL);
  CHECK(wait_exit(first) == 128 + SIGKILL);
  const auto before = check_rows(csv);
  CHECK(before.size() >= 4);
  CHECK(before.size() < 12);

  CHECK(wait_exit(spawn(args, log)) == 2);  // existing output without --resume: refused, untouched
  CHECK(check_rows(csv) == before);

  auto resume = args;
  resume.insert(resume.begin() + 1, "--resume");
  CHECK(wait_exit(spawn(resume, log)) == 0);
  const auto after = check_rows(csv);
  CHECK(after.size() == 12);
  for (const auto& [id, status] : before) CHECK(after.at(id) == status);
  CHECK(after.at("host/host_gemm/dtype=bf16/k=64/m=64/n=64") == "unsupported");  // failing point is a row
  CHECK(wait_exit(spawn(resume, log)) == 0);  // nothing left to do
  CHECK(check_rows(csv).size() == 12);
}

TEST_CASE("SIGTERM finishes the current point and exits cleanly", "[resume][binary]") {
  const auto dir = ptp_test::temp_dir("term");
  ptp_test::write_text(dir / "sweep.yaml", kSweep);
  const std::string out = (dir / "run").string(), csv = out + ".ops.csv", log = (dir / "log.txt").string();
  const pid_t pid = spawn({PTP_PROFILE_EXE, "--backend", "host", "--out", out, (dir / "sweep.yaml").string()}, log);
  wait_for_rows(csv, 2);
  ::kill(pid, SIGTERM);
  CHECK(wait_exit(pid) == 128 + SIGTERM);
  const auto rows = check_rows(csv);
  CHECK(rows.size() >= 2);
  CHECK(rows.size() < 12);
  CHECK(ptp_test::read_text(log).find("--resume") != std::string::npos);
}

TEST_CASE("a time budget stops cleanly and --plan runs nothing", "[resume][binary]") {
  const auto dir = ptp_test::temp_dir("budget");
  ptp_test::write_text(dir / "sweep.yaml", kSweep);
  const std::string out = (dir / "run").string(), log = (dir / "log.txt").string();
  // The budget's effect is that the run ends early (fewer rows than points, and it says so); how
  // long that took on a loaded machine is not asserted.
  CHECK(wait_exit(spawn({PTP_PROFILE_EXE, "--backend", "host", "--budget", "0.5s", "--out", out,
                         (dir / "sweep.yaml").string()}, log)) == 0);
  const auto rows = check_rows(out + ".ops.csv");
  CHECK(rows.size() >= 1);
  CHECK(rows.size() < 12);
  CHECK(ptp_test::read_text(log).find("budget") != std::string::npos);

  const std::string plan_out = (dir / "plan").string();
  CHECK(wait_exit(spawn({PTP_PROFILE_EXE, "--backend", "host", "--plan", "--out", plan_out,
                         (dir / "sweep.yaml").string()}, log)) == 0);
  CHECK_FALSE(std::filesystem::exists(plan_out + ".ops.csv"));
  CHECK(wait_exit(spawn({PTP_PROFILE_EXE, "--backend", "host", "--out", plan_out, (dir / "missing.yaml").string()},
                        log)) == 2);
  CHECK_FALSE(std::filesystem::exists(plan_out + ".ops.csv"));
}

TEST_CASE("a run in which no point succeeds exits non-zero, with every point a row", "[resume][binary]") {
  const auto dir = ptp_test::temp_dir("allfail");
  // The host backend measures FP32 only: both points end unsupported.
  ptp_test::write_text(dir / "sweep.yaml", R"(name: all-unsupported
settings: {warmup: 1, min_reps: 3, max_reps: 10, rel_noise: 0, max_time_s: 0.1}
benchmarks:
  - bench: host_gemm
    axes: {m: [64], n: [64], k: [64, 128], dtype: [bf16]}
)");
  const std::string out = (dir / "run").string(), log = (dir / "log.txt").string();
  CHECK(wait_exit(spawn({PTP_PROFILE_EXE, "--backend", "host", "--out", out, (dir / "sweep.yaml").string()}, log)) ==
        ptp::vocab::kExitNoPointSucceeded);
  const auto rows = check_rows(out + ".ops.csv");
  CHECK(rows.size() == 2);
  for (const auto& [id, status] : rows) CHECK(status == "unsupported");
  CHECK(ptp_test::read_text(log).find("no point succeeded") != std::string::npos);
}
