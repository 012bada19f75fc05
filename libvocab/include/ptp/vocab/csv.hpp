#pragma once
// RFC 4180 CSV with located errors (file:line:column). Used for the datasets (ptp-train reads what
// ptp-profile writes) and for --format csv output.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ptp/vocab/enum_names.hpp"

namespace ptp::vocab {

struct CsvRow {
  int line = 0;  // 1-based line where the row starts
  std::vector<std::string> cells;
};

class CsvTable {
 public:
  static CsvTable read_file(const std::string& path, std::size_t max_bytes = 256u << 20);
  static CsvTable parse(const std::string& text, const std::string& name);

  const std::string& file() const { return file_; }
  const std::vector<std::string>& header() const { return header_; }
  const std::vector<CsvRow>& rows() const { return rows_; }
  bool has_column(const std::string& name) const { return index_.count(name) > 0; }
  std::size_t column(const std::string& name) const;  // throws naming the file and the missing column
  void require_columns(const std::vector<std::string>& names) const;

  // Typed access with errors naming file:line, the column and the bad value.
  const std::string& text(const CsvRow& row, const std::string& col) const;
  std::optional<double> number(const CsvRow& row, const std::string& col) const;  // empty cell -> nullopt
  double positive(const CsvRow& row, const std::string& col) const;               // required, > 0, finite
  // The enumerator the cell names, from the enum's one name table.
  template <class E>
  E named(const CsvRow& row, const std::string& col, const EnumNames<E>& names) const {
    const std::string& cell = text(row, col);
    if (const E* e = find_named(names, cell)) return *e;
    fail_cell(row, col, "expected " + joined_names(names_of(names)) + ", got '" + cell + "'");
  }
  [[noreturn]] void fail_cell(const CsvRow& row, const std::string& col, const std::string& message) const;

 private:
  std::string file_;
  std::vector<std::string> header_;
  std::map<std::string, std::size_t> index_;
  std::vector<CsvRow> rows_;
};

std::string csv_escape(const std::string& cell);
std::string csv_line(const std::vector<std::string>& cells);  // with trailing newline

// Reads a whole text file without ever holding more than max_bytes + 64 KiB: refuses directories,
// files (or devices) larger than max_bytes and data with NUL bytes ("binary data, expected <what>").
std::string read_text_file(const std::string& path, std::size_t max_bytes, const std::string& what);
// The same for binary files (no NUL check).
std::string read_file_bounded(const std::string& path, std::size_t max_bytes);

// Writes to a temporary file in the same directory, then renames: readers never see a partial file.
void write_file_atomically(const std::string& path, const std::string& contents);

}  // namespace ptp::vocab
