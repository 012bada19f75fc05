// ptp-profile ingest-nccl-tests: nccl-tests text output (all_reduce_perf, ...) -> collectives rows,
// then rendered as the CSV the command prints. The rank count comes from the log or, for odd-sized
// inputs, from --ranks; --nodes 1 or 2.
#include "fuzz_common.hpp"
#include "ptp/profile/columns.hpp"
#include "ptp/profile/nccl_tests_ingest.hpp"
#include "ptp/vocab/csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptp::predict;
  const std::string text = ptp::fuzz::text_of(data, size);
  if (text.find('\0') != std::string::npos) return 0;  // the command reads logs with read_text_file: no NUL
  ptp::profile::IngestOptions opt;
  opt.gpu = "a100-sxm4-80gb";
  opt.ranks = size % 2 ? 16 : 0;
  opt.nodes = size % 3 ? 1 : 2;
  opt.fabric_inter = "ib-hdr-200";
  ptp::fuzz::expect_clean("fuzz-nccl.txt", [&] {
    const auto res = ptp::profile::ingest_nccl_tests(text, "fuzz-nccl.txt", opt);
    const auto header = ptp::profile::output_header(ptp::profile::Table::collectives);
    std::string csv = csv_line(header);
    for (const auto& row : res.rows) {
      std::vector<std::string> cells;
      for (const auto& col : header) {
        auto it = row.find(col);
        cells.push_back(it == row.end() ? "" : it->second);
      }
      csv += csv_line(cells);
    }
    // What ingest writes must be readable as a collectives table.
    const CsvTable back = CsvTable::parse(csv, "fuzz-nccl.csv");
    if (back.rows().size() != res.rows.size()) ptp::fuzz::finding("ingested rows do not read back");
    for (const auto& row : back.rows()) {
      if (back.text(row, "status") != "ok") continue;
      for (const char* col : {"size_bytes", "time_s"}) {
        const auto v = back.number(row, col);
        if (!v || !std::isfinite(*v) || *v < 0)
          ptp::fuzz::finding(std::string("ingested an ok row with ") + col + " = '" + back.text(row, col) + "'");
      }
    }
  });
  return 0;
}
