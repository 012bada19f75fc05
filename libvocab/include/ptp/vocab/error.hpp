#pragma once
// Errors users can fix (bad YAML, CSV, flags, bundles) are InputError: the CLI prints what() as one
// line and exits 2. Anything else escaping to main is a bug and exits 1.
#include <stdexcept>
#include <string>

namespace ptp::vocab {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message);
  // "file:line:column: field: problem" with the parts that are known.
  InputError(const std::string& file, int line, int column, const std::string& field,
             const std::string& problem);
  // The parts of the second form (empty, 0 for the first): a caller that knows better where a value
  // came from (a --set flag has no line in the file) can say so.
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& field() const { return field_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_, field_, problem_;
  int line_ = 0, column_ = 0;
};

std::string format_location(const std::string& file, int line, int column);

// The message as one printable line: control characters (newlines from quoted YAML scalars, file
// names, library messages) are escaped and very long messages are cut, so stderr gets one line.
std::string one_line(const std::string& message);

}  // namespace ptp::vocab
