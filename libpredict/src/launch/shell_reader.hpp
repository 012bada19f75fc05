#pragma once
// The shell reader behind script_arguments (shell_words.hpp): commands and assignments lexed in
// shell_words.cpp, $ expansions in shell_expansion.cpp. Every character keeps where it was written,
// so a flag expanded from a variable is reported at its assignment.
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::launch {

struct Pos {
  int line = 1, column = 1;
};

// Text with where each character was written: an expanded word keeps its assignment's positions.
struct Located {
  std::string s;
  std::vector<Pos> at;
  Pos start;  // where the word began (for an empty one)
  bool unresolved = false;
  void add(char c, Pos p) { s += c, at.push_back(p); }
  void append(const Located& o) {
    if (s.empty() && at.empty()) start = o.start;
    s += o.s, at.insert(at.end(), o.at.begin(), o.at.end()), unresolved = unresolved || o.unresolved;
  }
};
using Words = std::vector<Located>;

inline bool blank(char c) { return c == ' ' || c == '\t'; }
inline bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
inline bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
// Unquoted expansions split on blanks and newlines (IFS's default).
Words split_fields(const Located& text);

class ShellReader {
 public:
  ShellReader(const std::string& text, const std::string& file) : t_(text), file_(file) {}
  void run() {
    while (!eof())
      if (Words w = command(); !w.empty()) commands.push_back(std::move(w));
  }
  std::vector<Words> commands;     // each command that runs something
  std::vector<Words> assignments;  // each assignment's value as words, in file order

 private:
  char peek(std::size_t k = 0) const { return i_ + k < t_.size() ? t_[i_ + k] : '\0'; }
  bool eof() const { return i_ >= t_.size(); }
  char take() {
    const char c = t_[i_++];
    if (c == '\n')
      ++p_.line, p_.column = 1;
    else
      ++p_.column;
    return c;
  }
  [[noreturn]] void fail(Pos at, const std::string& why) const;
  bool separator(char c) const { return c == ';' || c == '&' || c == '|'; }

  // shell_words.cpp
  void skip_blanks();  // blanks and `\` continuations
  Words command();
  bool redirection();
  bool assignment();
  Words word(bool split);
  void double_quoted(Located& cur, Words& out, bool& have);
  // shell_expansion.cpp
  Words expand();
  Words braced(Located raw);
  Words lookup(const std::string& name, const std::string& index, Located raw, const Located* fallback, bool colon);
  Located substitution(char open, char close);

  const std::string& t_;
  const std::string& file_;
  std::size_t i_ = 0;
  Pos p_;
  bool in_array_ = false;
  std::size_t spent_ = 0;
  std::map<std::string, Words> vars_;
};

}  // namespace ptp::predict::launch
