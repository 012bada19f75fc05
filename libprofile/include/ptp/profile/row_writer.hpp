#pragma once
// Kill-safe CSV output. Each row is one write() of a whole line on an O_APPEND descriptor followed by
// fsync, so a SIGKILL leaves either the whole row or none of it. --resume reads the point ids already
// present (dropping a torn last line, which can only come from a full disk or a crashed kernel).
#include <set>
#include <string>
#include <vector>

#include "ptp/profile/row.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

class RowWriter {
 public:
  // Creates `path` with `header` (fails with InputError if it exists and !resume), or, with resume,
  // opens the existing file after checking its header equals `header`.
  RowWriter(std::string path, std::vector<std::string> header, bool resume);
  ~RowWriter();
  RowWriter(const RowWriter&) = delete;
  RowWriter& operator=(const RowWriter&) = delete;

  const std::set<std::string>& existing_ids() const { return existing_; }
  const std::string& path() const { return path_; }
  // Throws std::logic_error for a cell whose column is not in the header (a programming error).
  void append(const Row& row);

 private:
  std::string path_;
  std::vector<std::string> header_;
  std::set<std::string> existing_;
  int fd_ = -1;
};

// Point ids in an existing output file (empty when it does not exist).
std::set<std::string> read_point_ids(const std::string& path);

}  // namespace ptp::profile
