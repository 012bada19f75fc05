// Dataset CSV rows (datasets/*.csv, what ptp-profile writes and ptp-train reads): RFC 4180 parsing
// with located errors, typed access to every cell, then ptp-train's runs/ops/collectives loaders on
// the same text as a file.

#include <filesystem>
#include <fstream>

#include "fuzz_common.hpp"
#include "ptp/train/training_data.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/dataset_schema.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptp::predict;
  using namespace ptp::train;
  const std::string text = ptp::fuzz::text_of(data, size);
  ptp::fuzz::expect_clean("fuzz.csv", [&] {
    const CsvTable t = CsvTable::parse(text, "fuzz.csv");
    for (const TableSchema* schema : {&ops_schema(), &collectives_schema(), &runs_schema()})
      ptp::fuzz::expect_clean("fuzz.csv", [&] { t.require_columns(schema->required_names()); });
    for (std::size_t r = 0; r < t.rows().size() && r < 64; ++r) {  // typed access: enough rows for coverage
      const auto& row = t.rows()[r];
      if (row.cells.size() != t.header().size()) ptp::fuzz::finding("row width differs from the header");
      for (const auto& col : t.header()) {
        (void)t.text(row, col);
        ptp::fuzz::expect_clean("fuzz.csv", [&] {
          if (auto v = t.number(row, col); v && !std::isfinite(*v)) ptp::fuzz::finding("non-finite number accepted");
        });
        ptp::fuzz::expect_clean("fuzz.csv", [&] { (void)t.positive(row, col); });
      }
    }
    // What the writers produce must parse back to the same cells.
    std::string round_trip = csv_line(t.header());
    for (const auto& row : t.rows()) round_trip += csv_line(row.cells);
    const CsvTable back = CsvTable::parse(round_trip, "fuzz.csv");
    if (back.rows().size() != t.rows().size()) ptp::fuzz::finding("CSV round trip changed the row count");
    for (std::size_t i = 0; i < t.rows().size(); ++i)
      if (back.rows()[i].cells != t.rows()[i].cells) ptp::fuzz::finding("CSV round trip changed cells");
  });

  static const std::string path = ptp::fuzz::scratch_path("fuzz.csv");
  { std::ofstream(path, std::ios::binary | std::ios::trunc) << text; }
  ptp::fuzz::expect_clean("fuzz.csv", [&] {
    for (const auto& r : load_runs(path).rows)
      if (!(r.step_time_s > 0) || !std::isfinite(r.step_time_s)) ptp::fuzz::finding("run row with a bad step time");
  });
  ptp::fuzz::expect_clean("fuzz.csv", [&] {
    for (const auto& r : load_ops(path).rows)
      if (!(r.time_s > 0) || !std::isfinite(r.time_s)) ptp::fuzz::finding("op row with a bad time");
  });
  ptp::fuzz::expect_clean("fuzz.csv", [&] {
    for (const auto& r : load_collectives(path).rows)
      if (!(r.time_s > 0) || r.ranks < 2) ptp::fuzz::finding("collective row with a bad time or rank count");
  });
  return 0;
}
