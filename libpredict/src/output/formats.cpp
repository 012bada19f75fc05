// The one table of output formats: a new format is one entry here plus its printer (<format>_printer.cpp).
#include "printers.hpp"
#include "ptp/predict/output.hpp"
#include "ptp/predict/search.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> formats = {
      {"table", "readable report per job; one line per row for a sweep", printers::table()},
      {"json", "one pretty JSON object (exactly one job, no sweep)", printers::json()},
      {"jsonl", "one compact JSON object per job or sweep row", printers::jsonl()},
      {"csv", "header plus one line per job or sweep row", printers::csv()},
      {"slurm", "#SBATCH --time/--nodes/--gpus-per-node of one job, with how they were derived", printers::slurm()},
  };
  return formats;
}

std::vector<std::string> output_format_names() {
  std::vector<std::string> names;
  for (const auto& f : output_formats()) names.emplace_back(f.name);
  return names;
}

const OutputFormat& find_output_format(const std::string& name) {
  std::string expected;
  for (const auto& f : output_formats()) {
    if (name == f.name) return f;
    expected += std::string(expected.empty() ? "" : " | ") + f.name;
  }
  throw InputError("--format '" + name + "': expected " + expected);
}

std::string render_search(const SearchResult& result, const std::string& format) {
  std::string printing;
  for (const auto& f : output_formats()) {
    if (!f.printer.prints_search()) continue;
    if (format == f.name) return f.printer.search(result);
    printing += std::string(printing.empty() ? "" : " | ") + f.name;
  }
  throw InputError("--format '" + format + "': --search prints " + printing);
}

}  // namespace ptp::predict
