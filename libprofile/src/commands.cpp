#include "ptp/profile/commands.hpp"

#include <fstream>
#include <ostream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "ptp/profile/columns.hpp"
#include "ptp/profile/cuda_device.hpp"
#include "ptp/profile/microbenchmark.hpp"
#include "ptp/profile/row_writer.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

std::size_t ingest_nccl_tests_command(const std::string& log_path, const IngestOptions& opt,
                                      const std::string& out_csv, std::ostream& stdout_stream) {
  const std::string text = read_text_file(log_path, 64u << 20, "nccl-tests text output");  // bounded: /dev/zero
  IngestOptions o = opt;
  if (o.source_ref.empty()) o.source_ref = log_path;
  const IngestResult res = ingest_nccl_tests(text, log_path, o);  // parse fully before writing
  const auto header = output_header(Table::collectives);
  if (out_csv.empty()) {
    stdout_stream << csv_line(header);
    for (const auto& row : res.rows) {
      std::vector<std::string> cells;
      for (const auto& col : header) {
        auto it = row.find(col);
        cells.push_back(it == row.end() ? "" : it->second);
      }
      stdout_stream << csv_line(cells);
    }
  } else {
    RowWriter writer(out_csv, header, /*resume=*/true);
    for (const auto& row : res.rows)
      if (!writer.existing_ids().count(row.at("point_id"))) writer.append(row);
  }
  return res.rows.size();
}

void list_benchmarks(std::ostream& out) {
  if (std::string why; cuda::compiled() && !cuda::load(&why))
    spdlog::warn("{}; listing the host benchmarks only", why);
  for (const auto* b : Registry::instance().all()) {
    out << b->name() << "  [" << backend_name(b->backend()) << ", " << table_name(b->table()) << "]\n";
    for (const auto& a : b->axes())
      out << "    " << a.name << (a.fallback.empty() ? "" : " (default " + a.fallback + ")") << ": " << a.help << "\n";
  }
}

}  // namespace ptp::profile
