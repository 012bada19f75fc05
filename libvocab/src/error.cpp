#include "ptp/vocab/error.hpp"

#include <algorithm>

namespace ptp::vocab {

std::string format_location(const std::string& file, int line, int column) {
  std::string out = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  return out;
}

std::string one_line(const std::string& message) {
  constexpr std::size_t kMaxChars = 2000;
  static const char* const hex = "0123456789abcdef";
  std::string out;
  out.reserve(std::min(message.size(), kMaxChars + 16));
  for (char ch : message) {
    if (out.size() >= kMaxChars) {
      // Do not leave half a UTF-8 sequence before the ellipsis.
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
      if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += ' ';
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

static std::string compose(const std::string& file, int line, int column, const std::string& field,
                           const std::string& problem) {
  std::string out = format_location(file, line, column) + ": ";
  if (!field.empty()) out += field + ": ";
  out += problem;
  return one_line(out);
}

InputError::InputError(const std::string& message) : std::runtime_error(one_line(message)) {}

InputError::InputError(const std::string& file, int line, int column, const std::string& field,
                       const std::string& problem)
    : std::runtime_error(compose(file, line, column, field, problem)),
      file_(file),
      field_(field),
      problem_(problem),
      line_(line),
      column_(line > 0 ? column : 0) {}

}  // namespace ptp::vocab
