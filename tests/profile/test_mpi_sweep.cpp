// The 2-rank host collective sweep through the real binary and mpirun (root needs
// --allow-run-as-root; 2 cores need --oversubscribe).
#include <catch2/catch.hpp>

#include <cstdlib>

#include "ptp/profile/busbw.hpp"
#include "ptp/profile/comm.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/dataset_schema.hpp"
#include "test_helpers.hpp"

TEST_CASE("2-rank MPI all_reduce sweep writes collectives rows", "[mpi][binary]") {
  if (!ptp::profile::Comm::compiled_with_mpi() || std::string(PTP_MPIEXEC).empty()) {
    WARN("built without MPI: the 2-rank sweep is not run");
    return;
  }
  const auto dir = ptp_test::temp_dir("mpi");
  const std::string out = (dir / "mpi").string();
#ifdef PTP_TEST_SANITIZE
  // Open MPI keeps allocations from MPI_Init past MPI_Finalize; LeakSanitizer would fail every rank
  // on them (no ptp frames in those stacks). Address and UB checks stay on.
  const std::string env = " -x ASAN_OPTIONS=detect_leaks=0 ";
#else
  const std::string env = " ";
#endif
  const std::string cmd = std::string(PTP_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 2" + env + PTP_PROFILE_EXE +
                          " --backend host --out " + out + " " + PTP_SOURCE_DIR +
                          "/configs/sweeps/host-mpi.yaml 2>" + (dir / "log.txt").string();
  const int rc = std::system(cmd.c_str());
  INFO(ptp_test::read_text(dir / "log.txt"));
  REQUIRE(rc == 0);
  const auto table = ptp::vocab::CsvTable::read_file(out + ".collectives.csv");
  table.require_columns(ptp::vocab::collectives_schema().required_names());
  REQUIRE(table.rows().size() == 8);  // 8 B .. 16 MiB in x8 steps, written once (rank 0)
  for (const auto& row : table.rows()) {
    CHECK(table.text(row, "status") == "ok");
    CHECK(table.text(row, "ranks") == "2");
    const double t = table.positive(row, "time_s"), size = table.positive(row, "size_bytes");
    CHECK(*table.number(row, "busbw_GBps") ==
          Approx(ptp::profile::busbw_GBps("all_reduce", 2, size, t)).epsilon(1e-6));
  }
}
