#include "ptp/vocab/error.hpp"

namespace ptp {

std::string format_location(const std::string& file, int line, int column) {
  std::string out = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  return out;
}

static std::string compose(const std::string& file, int line, int column, const std::string& field,
                           const std::string& problem) {
  std::string out = format_location(file, line, column) + ": ";
  if (!field.empty()) out += field + ": ";
  out += problem;
  // One line, always: multi-line messages from libraries are cut at the first newline.
  auto nl = out.find('\n');
  if (nl != std::string::npos) out.resize(nl);
  return out;
}

InputError::InputError(const std::string& file, int line, int column, const std::string& field,
                       const std::string& problem)
    : std::runtime_error(compose(file, line, column, field, problem)) {}

}  // namespace ptp
