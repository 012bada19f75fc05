// $ expansions of the shell subset (shell_words.hpp): $NAME, ${NAME}, ${NAME[@]}, ${NAME[i]},
// ${NAME:-default} and ${NAME-default} from the file's own assignments (bash(1): Parameter
// Expansion). $(...), $((...)) and `...` would run commands: they stay as written, unresolved, as
// does a variable the file does not set.
#include <cctype>
#include <cstring>

#include "shell_reader.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::launch {

namespace {
constexpr std::size_t kExpansionBudget = 16u << 20;  // characters; A="$A$A" doubles per line
}  // namespace

// $(...), $((...)) and `...` run commands: kept as written, unresolved.
Located ShellReader::substitution(char open, char close) {
  Located l;
  const Pos at = p_;
  l.start = at;
  int depth = 0;
  do {
    if (eof()) fail(at, std::string("unterminated ") + open + "...");
    const char c = peek();
    if (c == open && (open != close || depth == 0))
      ++depth;
    else if (c == close)
      --depth;
    const Pos p = p_;
    l.add(take(), p);
  } while (depth > 0);
  l.unresolved = true;
  return l;
}

Words ShellReader::expand() {
  const Pos at = p_;
  Located raw;
  raw.start = at;
  if (peek(1) == '(') {
    take();
    Located l = substitution('(', ')');
    l.s.insert(l.s.begin(), '$'), l.at.insert(l.at.begin(), at), l.start = at;
    return {l};
  }
  raw.add(take(), at);  // '$'
  if (peek() == '{') return braced(raw);
  if (name_start(peek())) {
    std::string name;
    while (name_char(peek())) {
      const Pos p = p_;
      name += peek();
      raw.add(take(), p);
    }
    return lookup(name, "", raw, nullptr, false);
  }
  if (std::isdigit(static_cast<unsigned char>(peek())) || (peek() != '\0' && std::strchr("@*#?$!-", peek()))) {
    const Pos p = p_;
    raw.add(take(), p);
    raw.unresolved = true;
  }
  return {raw};  // a lone $ is itself
}

Words ShellReader::braced(Located raw) {
  {
    const Pos p = p_;
    raw.add(take(), p);  // '{'
  }
  std::string inner;
  std::vector<Pos> inner_at;
  for (int depth = 1;;) {
    if (eof()) fail(raw.start, "${ without a closing }");
    const Pos p = p_;
    const char c = take();
    raw.add(c, p);
    if (c == '{')
      ++depth;
    else if (c == '}' && --depth == 0)
      break;
    inner += c, inner_at.push_back(p);
  }
  std::size_t k = 0;
  while (k < inner.size() && name_char(inner[k])) ++k;
  const std::string name = inner.substr(0, k);
  std::string index;
  if (k < inner.size() && inner[k] == '[') {
    const auto close = inner.find(']', k);
    if (close == std::string::npos)
      k = inner.size() + 1;
    else
      index = inner.substr(k + 1, close - k - 1), k = close + 1;
  }
  Located fallback;
  fallback.start = raw.start;
  bool colon = false, has_fallback = false;
  if (k < inner.size() && (inner.compare(k, 2, ":-") == 0 || inner[k] == '-')) {
    colon = inner[k] == ':';
    k += colon ? 2 : 1;
    has_fallback = true;
    for (; k < inner.size(); ++k)
      if (inner[k] != '"' && inner[k] != '\'') fallback.add(inner[k], inner_at[k]);
  }
  if (name.empty() || !name_start(name[0]) || k != inner.size()) {
    raw.unresolved = true;
    return {raw};
  }
  return lookup(name, index, raw, has_fallback ? &fallback : nullptr, colon);
}

Words ShellReader::lookup(const std::string& name, const std::string& index, Located raw, const Located* fallback,
                          bool colon) {
  const auto it = vars_.find(name);
  const bool set = it != vars_.end() && !it->second.empty() && (!colon || !it->second.front().s.empty());
  if (!set) {
    if (fallback) return {*fallback};
    raw.unresolved = true;
    return {raw};
  }
  Words out;
  if (index == "@" || index == "*") {
    out = it->second;
  } else {
    if (!index.empty() && index.find_first_not_of("0123456789") != std::string::npos) {
      raw.unresolved = true;
      return {raw};
    }
    const std::size_t n = index.empty() ? 0 : std::stoul(index.substr(0, 9));
    if (n < it->second.size()) out.push_back(it->second[n]);
  }
  for (const auto& w : out) spent_ += w.s.size();
  if (spent_ > kExpansionBudget) fail(raw.start, "variables expand to more than 16 MiB");
  return out;
}

}  // namespace ptp::predict::launch
