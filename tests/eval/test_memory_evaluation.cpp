// The memory evaluation ptp-train writes into its report (libeval memory_evaluation.cpp), on rows of
// the shipped datasets/memory.csv (published measurements): a row whose published peak is below what
// its own configuration keeps resident is set aside with that reason, and the same row with a peak
// above it is judged.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ptp/eval/memory_evaluation.hpp"
#include "ptp/vocab/csv.hpp"

namespace {
const std::string kSetAside =
    "published peak below the weights, gradients and optimizer state its configuration keeps resident";

// datasets/memory.csv's header and the row with this row_id, its measured_peak_gib replaced when given.
std::string table_with_row(const std::string& row_id, const std::string& measured_gib = "") {
  const auto t = ptp::vocab::CsvTable::read_file(std::string(PTP_SOURCE_DIR) + "/datasets/memory.csv");
  for (const auto& r : t.rows()) {
    if (t.text(r, "row_id") != row_id) continue;
    std::vector<std::string> cells;
    for (const auto& column : t.header())
      cells.push_back(column == "measured_peak_gib" && !measured_gib.empty() ? measured_gib : t.text(r, column));
    return ptp::vocab::csv_line(t.header()) + ptp::vocab::csv_line(cells);
  }
  FAIL("row " << row_id << " not in datasets/memory.csv");
  return "";
}

ptp::eval::MemoryEvaluation evaluate(const std::string& csv_text, const std::string& name) {
  const auto path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << csv_text;
  ptp::eval::MemoryEvaluationOptions o;
  o.memory_csv = path;
  static const ptp::predict::Catalogs catalogs(std::string(PTP_SOURCE_DIR) + "/configs");
  auto e = ptp::eval::evaluate_memory(o, catalogs);
  std::filesystem::remove(path);
  return e;
}
}  // namespace

TEST_CASE("a published peak below its configuration's resident training state is set aside, not judged",
          "[memory][eval]") {
  // litgpt's full fine-tune of Llama 3.2 3B on one A10G, AdamW on bf16-true weights: 15.4 GiB published.
  const auto below = evaluate(table_with_row("184"), "ptp-memory-eval-below.csv");
  CHECK(below.summary.at("rows").get<int>() == 0);
  CHECK(below.markdown.find(kSetAside) != std::string::npos);
  // The same configuration published at 40 GiB (not a measurement: the row's value replaced) is judged.
  const auto above = evaluate(table_with_row("184", "40"), "ptp-memory-eval-above.csv");
  CHECK(above.summary.at("rows").get<int>() == 1);
  CHECK(above.markdown.find(kSetAside) == std::string::npos);
}
