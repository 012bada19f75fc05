#include "ptp/profile/row_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_all(int fd, const std::string& text, const std::string& path) {
  // One write() per row: with O_APPEND the kernel places the whole buffer at the end in one step, so
  // concurrent appenders and kills never interleave or tear rows on a local file system.
  const ssize_t n = ::write(fd, text.data(), text.size());
  if (n != static_cast<ssize_t>(text.size()))
    throw std::runtime_error("write to " + path + " failed: " + (n < 0 ? std::strerror(errno) : "short write"));
  if (::fsync(fd) != 0) throw std::runtime_error("fsync " + path + ": " + std::strerror(errno));
}

}  // namespace

std::set<std::string> read_point_ids(const std::string& path) {
  std::set<std::string> ids;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return ids;
  std::string text = read_all(path);
  const auto last_newline = text.rfind('\n');
  text.resize(last_newline == std::string::npos ? 0 : last_newline + 1);  // ignore a torn tail
  if (text.empty()) return ids;
  const CsvTable table = CsvTable::parse(text, path);
  const std::size_t col = table.column("point_id");
  for (const auto& row : table.rows())
    if (col < row.cells.size()) ids.insert(row.cells[col]);
  return ids;
}

RowWriter::RowWriter(std::string path, std::vector<std::string> header, bool resume)
    : path_(std::move(path)), header_(std::move(header)) {
  const std::string header_line = csv_line(header_);
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0 && st.st_size > 0;
  if (exists && !resume)
    throw InputError(path_ + ": output exists; pass --resume to continue it or choose another --out");
  if (exists) {
    std::string text = read_all(path_);
    if (text.compare(0, header_line.size(), header_line) != 0)
      throw InputError(path_ + ":1: header differs from this ptp-profile's columns; cannot resume into it");
    const auto last_newline = text.rfind('\n');
    if (last_newline + 1 != text.size()) {  // torn tail (disk full / kernel crash): drop it
      if (::truncate(path_.c_str(), static_cast<off_t>(last_newline + 1)) != 0)
        throw std::runtime_error("truncate " + path_ + ": " + std::strerror(errno));
    }
    existing_ = read_point_ids(path_);
  }
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw InputError(path_ + ": cannot open for writing: " + std::strerror(errno));
  if (!exists) write_all(fd_, header_line, path_);
}

RowWriter::~RowWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void RowWriter::append(const Row& row) {
  std::vector<std::string> cells(header_.size());
  std::size_t used = 0;
  for (std::size_t i = 0; i < header_.size(); ++i) {
    auto it = row.find(header_[i]);
    if (it != row.end()) {
      cells[i] = it->second;
      ++used;
    }
  }
  if (used != row.size()) {
    for (const auto& [col, value] : row)
      if (std::find(header_.begin(), header_.end(), col) == header_.end())
        throw std::logic_error("row for " + path_ + " has a cell for unknown column '" + col + "'");
  }
  write_all(fd_, csv_line(cells), path_);
}

}  // namespace ptp::profile
