// The shell subset of shell_words.hpp, lexing: quotes, backslash escapes and `\` continuations,
// comments, command separators, redirections (dropped), NAME=value / NAME=(...) / NAME+=..., export
// and declare (bash(1): QUOTING, SHELL GRAMMAR, PARAMETERS). Expansions are shell_expansion.cpp's.
#include "shell_words.hpp"

#include <cctype>
#include <cstring>

#include "ptp/vocab/error.hpp"
#include "shell_reader.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::launch {

namespace {

bool ends_with(const std::string& s, const char* tail) {
  const std::size_t n = std::strlen(tail);
  return s.size() > n && s.compare(s.size() - n, n, tail) == 0;
}

std::vector<Word> to_words(const Words& words, std::size_t from) {
  std::vector<Word> out;
  for (std::size_t i = from; i < words.size(); ++i) {
    const Located& w = words[i];
    const Pos p = w.at.empty() ? w.start : w.at.front();
    out.push_back({w.s, p.line, p.column, w.unresolved});
  }
  return out;
}

}  // namespace

Words split_fields(const Located& text) {
  Words out;
  Located cur;
  for (std::size_t i = 0; i < text.s.size(); ++i) {
    const char c = text.s[i];
    if (blank(c) || c == '\n') {
      if (!cur.s.empty()) out.push_back(cur), cur = {};
      continue;
    }
    cur.add(c, text.at[i]);
    cur.unresolved = text.unresolved;
  }
  if (!cur.s.empty()) out.push_back(cur);
  return out;
}

void ShellReader::fail(Pos at, const std::string& why) const { throw InputError(file_, at.line, at.column, "", why); }

void ShellReader::skip_blanks() {
  while (true) {
    if (blank(peek()))
      take();
    else if (peek() == '\\' && peek(1) == '\n')
      take(), take();
    else
      return;
  }
}

Words ShellReader::command() {
  Words words;
  bool head = true, declaring = false, any = false;
  while (true) {
    skip_blanks();
    if (eof()) break;
    const char c = peek();
    if (c == '#') {
      while (!eof() && peek() != '\n') take();
      continue;
    }
    if (c == '\n' || separator(c)) {
      while (peek() == '\n' || separator(peek())) {
        const bool newline = peek() == '\n';
        take();
        if (newline) break;
      }
      if (words.empty() && !any) continue;
      break;
    }
    if (head && assignment()) {
      any = true;
      continue;
    }
    if (redirection()) continue;
    Words w = word(true);
    // export/declare NAME=...: the assignments that follow count; their options and bare names do not.
    if (head && w.size() == 1 && !declaring) {
      const std::string& s = w[0].s;
      if (s == "export" || s == "declare" || s == "typeset" || s == "local" || s == "readonly") {
        declaring = any = true;
        continue;
      }
    }
    if (declaring) continue;
    head = false;
    words.insert(words.end(), w.begin(), w.end());
  }
  return words;
}

// >file, 2>&1, <in: where output goes is no argument.
bool ShellReader::redirection() {
  std::size_t k = 0;
  while (std::isdigit(static_cast<unsigned char>(peek(k)))) ++k;
  if (peek(k) != '>' && peek(k) != '<') return false;
  while (k-- > 0) take();
  while (peek() == '>' || peek() == '<' || peek() == '|') take();
  if (peek() == '&') {
    take();
    while (std::isdigit(static_cast<unsigned char>(peek())) || peek() == '-') take();
    return true;
  }
  skip_blanks();
  if (!eof() && peek() != '\n' && !separator(peek())) word(false);  // the file
  return true;
}

// NAME=value, NAME+=value or NAME=( words ) where a command starts.
bool ShellReader::assignment() {
  if (!name_start(peek())) return false;
  std::size_t k = 0;
  while (name_char(peek(k))) ++k;
  const bool append = peek(k) == '+' && peek(k + 1) == '=';
  if (!append && peek(k) != '=') return false;
  const std::string name = t_.substr(i_, k);
  for (std::size_t n = 0; n < k + (append ? 2 : 1); ++n) take();
  Words value;
  const bool array = peek() == '(';
  if (array) {
    const Pos open = p_;
    take();
    in_array_ = true;
    while (true) {
      while (blank(peek()) || peek() == '\n' || (peek() == '\\' && peek(1) == '\n')) take();
      if (peek() == '#') {
        while (!eof() && peek() != '\n') take();
        continue;
      }
      if (eof()) fail(open, "array assignment without a closing )");
      if (peek() == ')') break;
      if (separator(peek())) fail(p_, std::string("unexpected '") + peek() + "' inside an array assignment");
      Words w = word(true);
      value.insert(value.end(), w.begin(), w.end());
    }
    take();
    in_array_ = false;
  } else {
    Located joined;
    joined.start = p_;
    for (const auto& piece : word(false)) {
      if (!joined.s.empty()) joined.add(' ', piece.start);
      joined.append(piece);
    }
    value.push_back(joined);
  }
  Words& v = vars_[name];
  if (!append) v.clear();
  if (append && !array && !v.empty())
    v.front().append(value.front());
  else
    v.insert(v.end(), value.begin(), value.end());
  Words fields;
  for (const auto& piece : value) {
    Words f = array ? Words{piece} : split_fields(piece);
    fields.insert(fields.end(), f.begin(), f.end());
  }
  assignments.push_back(std::move(fields));
  return true;
}

// One shell word; unquoted expansions may split it into several (`split`), as in a command.
Words ShellReader::word(bool split) {
  Words out;
  Located cur;
  cur.start = p_;
  bool have = false;
  auto join = [&](const Words& pieces) {
    if (pieces.empty()) return;
    cur.append(pieces.front());
    for (std::size_t k = 1; k < pieces.size(); ++k) out.push_back(cur), cur = pieces[k];
    have = true;
  };
  while (!eof()) {
    const char c = peek();
    if (blank(c) || c == '\n' || separator(c) || (in_array_ && c == ')')) break;
    if (c == '\\') {
      take();
      if (peek() == '\n') {
        take();
        continue;
      }
      if (eof()) break;
      const Pos p = p_;
      cur.add(take(), p);
      have = true;
    } else if (c == '\'') {
      const Pos open = p_;
      take();
      while (!eof() && peek() != '\'') {
        const Pos p = p_;
        cur.add(take(), p);
      }
      if (eof()) fail(open, "unterminated ' quote");
      take();
      have = true;
    } else if (c == '"') {
      double_quoted(cur, out, have);
      have = true;
    } else if (c == '$') {
      const Words pieces = expand();
      if (!split) {
        join(pieces);
        continue;
      }
      Words fields;
      for (const auto& piece : pieces) {
        // What could not be evaluated stays one word, as written.
        Words f = piece.unresolved ? Words{piece} : split_fields(piece);
        fields.insert(fields.end(), f.begin(), f.end());
      }
      join(fields);
    } else if (c == '`') {
      cur.append(substitution('`', '`'));
      have = true;
    } else {
      const Pos p = p_;
      cur.add(take(), p);
      have = true;
    }
  }
  if (have || !cur.s.empty()) out.push_back(cur);
  return out;
}

// "${A[@]}" keeps one word per element: an element after the first starts a new word.
void ShellReader::double_quoted(Located& cur, Words& out, bool& have) {
  const Pos open = p_;
  take();
  while (true) {
    if (eof()) fail(open, "unterminated \" quote");
    const char d = peek();
    if (d == '"') {
      take();
      return;
    }
    if (d == '\\' && std::strchr("\"\\$`\n", peek(1)) && peek(1) != '\0') {
      take();
      if (peek() == '\n') {
        take();
        continue;
      }
    } else if (d == '$') {
      const Words pieces = expand();
      if (!pieces.empty()) {
        cur.append(pieces.front());
        for (std::size_t k = 1; k < pieces.size(); ++k) out.push_back(cur), cur = pieces[k];
        have = true;
      }
      continue;
    } else if (d == '`') {
      cur.append(substitution('`', '`'));
      continue;
    }
    const Pos p = p_;
    cur.add(take(), p);
  }
}

std::vector<Word> script_arguments(const std::string& text, const std::string& file) {
  std::string unix_text;  // CRLF files (pasted from Windows) read as LF
  unix_text.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i)
    if (!(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) unix_text += text[i];
  ShellReader r(unix_text, file);
  r.run();
  for (const auto& cmd : r.commands)
    for (std::size_t i = 0; i < cmd.size(); ++i)
      if (ends_with(cmd[i].s, ".py")) return to_words(cmd, i + 1);
  // An argument list (one per line, or several): every word, values on lines of their own included.
  Words list;
  if (!r.commands.empty() && r.commands.front().front().s.rfind('-', 0) == 0)
    for (const auto& cmd : r.commands) list.insert(list.end(), cmd.begin(), cmd.end());
  if (list.empty())
    for (const auto& a : r.assignments)
      for (const auto& w : a)
        if (w.s.rfind("--", 0) == 0) {
          list.insert(list.end(), a.begin(), a.end());
          break;
        }
  return to_words(list, 0);
}

}  // namespace ptp::predict::launch
