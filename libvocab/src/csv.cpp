#include "ptp/vocab/csv.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ptp/vocab/error.hpp"

namespace ptp::vocab {

namespace {
std::string size_text(std::size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}
}  // namespace

std::string read_text_file(const std::string& path, std::size_t max_bytes, const std::string& what) {
  std::string text = read_file_bounded(path, max_bytes);
  if (text.find('\0') != std::string::npos) throw InputError(path, 0, 0, "", "binary data, expected " + what);
  return text;
}

std::string read_file_bounded(const std::string& path, std::size_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, 0, 0, "", "is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, 0, "", "cannot read file");
  // A regular file's size is known: refuse a large one before reading it, and read the rest into
  // one allocation. Devices and pipes (/dev/zero) are read in chunks up to the cap into a buffer
  // reserved once: growing it by doubling touched three times the cap in fresh pages.
  std::string text;
  const auto size = std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : 0;
  if (!ec && size > max_bytes) throw InputError(path, 0, 0, "", "file is larger than " + size_text(max_bytes));
  char chunk[1 << 16];
  text.reserve((size > 0 ? static_cast<std::size_t>(size) : max_bytes) + sizeof chunk);
  while (in) {
    in.read(chunk, sizeof chunk);
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) throw InputError(path, 0, 0, "", "file is larger than " + size_text(max_bytes));
  }
  if (in.bad()) throw InputError(path, 0, 0, "", "cannot read file");
  return text;
}

CsvTable CsvTable::read_file(const std::string& path, std::size_t max_bytes) {
  return parse(read_text_file(path, max_bytes, "CSV text"), path);
}

CsvTable CsvTable::parse(const std::string& text, const std::string& name) {
  CsvTable t;
  t.file_ = name;
  if (text.find('\0') != std::string::npos) throw InputError(name, 0, 0, "", "binary data, expected CSV text");
  std::vector<CsvRow> records;
  CsvRow cur;
  std::string cell;
  bool in_quotes = false, cell_started = false;
  int line = 1;
  cur.line = 1;
  auto end_cell = [&] {
    cur.cells.push_back(cell);
    cell.clear();
    cell_started = false;
  };
  auto end_row = [&] {
    end_cell();
    bool blank = cur.cells.size() == 1 && cur.cells[0].empty();
    if (!blank) records.push_back(cur);
    cur = CsvRow{};
    cur.line = line;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          cell += '"';
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line;
        cell += c;
      }
      continue;
    }
    if (c == '"' && !cell_started) {
      in_quotes = true;
      cell_started = true;
    } else if (c == ',') {
      end_cell();
    } else if (c == '\r') {
      // tolerate CRLF
    } else if (c == '\n') {
      ++line;
      end_row();
    } else {
      cell += c;
      cell_started = true;
    }
  }
  if (in_quotes) throw InputError(name, cur.line, 0, "", "unterminated quoted field");
  if (!cell.empty() || !cur.cells.empty()) end_row();
  if (records.empty()) throw InputError(name, 0, 0, "", "empty file, expected a CSV header");
  t.header_ = records.front().cells;
  for (std::size_t i = 0; i < t.header_.size(); ++i) {
    if (t.header_[i].empty()) throw InputError(name, 1, static_cast<int>(i + 1), "", "empty column name in header");
    if (t.index_.count(t.header_[i]))
      throw InputError(name, 1, static_cast<int>(i + 1), t.header_[i], "duplicate column in header");
    t.index_[t.header_[i]] = i;
  }
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].cells.size() != t.header_.size())
      throw InputError(name, records[r].line, 0, "",
                       "row has " + std::to_string(records[r].cells.size()) + " fields, header has " +
                           std::to_string(t.header_.size()));
    t.rows_.push_back(std::move(records[r]));
  }
  return t;
}

std::size_t CsvTable::column(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) throw InputError(file_, 1, 0, name, "missing column");
  return it->second;
}

void CsvTable::require_columns(const std::vector<std::string>& names) const {
  for (const auto& n : names) column(n);
}

const std::string& CsvTable::text(const CsvRow& row, const std::string& col) const {
  return row.cells[column(col)];
}

std::optional<double> CsvTable::number(const CsvRow& row, const std::string& col) const {
  std::size_t idx = column(col);
  const std::string& s = row.cells[idx];
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    throw InputError(file_, row.line, static_cast<int>(idx + 1), col, "expected a finite number, got '" + s + "'");
  return v;
}

void CsvTable::fail_cell(const CsvRow& row, const std::string& col, const std::string& message) const {
  throw InputError(file_, row.line, static_cast<int>(column(col) + 1), col, message);
}

double CsvTable::positive(const CsvRow& row, const std::string& col) const {
  auto v = number(row, col);
  if (!v) throw InputError(file_, row.line, static_cast<int>(column(col) + 1), col, "missing value");
  if (*v <= 0)
    throw InputError(file_, row.line, static_cast<int>(column(col) + 1), col,
                     "expected a positive number, got '" + text(row, col) + "'");
  return *v;
}

std::string csv_escape(const std::string& cell) {
  if (cell.find_first_of(",\"\n\r") == std::string::npos) return cell;
  std::string out = "\"";
  for (char c : cell) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string out;
  for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + csv_escape(cells[i]);
  return out + "\n";
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path tmp = target;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, 0, 0, "", "cannot write file");
    out << contents;
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw InputError(path, 0, 0, "", "cannot write file");
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw InputError(path, 0, 0, "", "cannot write file");
  }
}

}  // namespace ptp::vocab
