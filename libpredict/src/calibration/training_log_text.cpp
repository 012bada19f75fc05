#include "training_log_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::training_log {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_word_char(char c) { return is_alpha(c) || is_digit(c) || c == '_'; }

// The length of one launcher prefix at s[0], or 0: srun --label "3: ", torchrun --tee / log
// prefixes "[rank3]:" and "[default0]:", mpirun --tag-output "[1,3]<stdout>:", and "rank 3:".
std::size_t rank_prefix_length(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  const std::size_t digits_from = i;
  while (i < s.size() && is_digit(s[i]) && i - digits_from < 7) ++i;
  if (i > digits_from && i + 1 < s.size() && s[i] == ':' && s[i + 1] == ' ') return i + 1;
  i = digits_from;
  if (i < s.size() && s[i] == '[') {
    std::size_t j = i + 1;
    if (j < s.size() && is_alpha(s[j])) {
      while (j < s.size() && is_alpha(s[j]) && j - i < 24) ++j;
      const std::size_t d = j;
      while (j < s.size() && is_digit(s[j]) && j - d < 7) ++j;
      if (j > d && j + 1 < s.size() && s[j] == ']' && s[j + 1] == ':') return j + 2;
      return 0;
    }
    while (j < s.size() && (is_digit(s[j]) || s[j] == ',') && j - i < 16) ++j;
    if (j > i + 1 && s.substr(j, 2) == "]<") {
      const auto close = s.find(">:", j);
      if (close != std::string_view::npos && close - j < 12) return close + 2;
    }
    return 0;
  }
  for (std::string_view word : {"rank", "Rank"}) {
    if (s.substr(i, word.size()) != word) continue;
    std::size_t j = i + word.size();
    if (j < s.size() && s[j] == ' ') ++j;
    const std::size_t d = j;
    while (j < s.size() && is_digit(s[j]) && j - d < 7) ++j;
    if (j > d && j < s.size() && s[j] == ':') return j + 1;
  }
  return 0;
}

// Cuts ESC [ ... final-byte sequences (and a stray ESC) out of `s` into `out`, noting where.
void remove_colour_codes(std::string_view s, std::string& out, std::vector<std::pair<std::size_t, int>>& removed) {
  out.clear();
  removed.clear();
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] != '\x1b') {
      out += s[i++];
      continue;
    }
    std::size_t j = i + 1;
    if (j < s.size() && s[j] == '[') {
      ++j;
      while (j < s.size() && static_cast<unsigned char>(s[j]) >= 0x20 && static_cast<unsigned char>(s[j]) < 0x40) ++j;
      if (j < s.size() && static_cast<unsigned char>(s[j]) >= 0x40 && static_cast<unsigned char>(s[j]) < 0x7f) ++j;
    }
    removed.emplace_back(out.size(), static_cast<int>(j - i));
    i = j;
  }
}

bool blank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t') return false;
  return true;
}

}  // namespace

int LogLine::column(std::size_t pos) const {
  std::size_t col = static_cast<std::size_t>(first_column) + pos;
  if (removed)
    for (const auto& [at, bytes] : *removed)
      if (at <= pos) col += static_cast<std::size_t>(bytes);
  return static_cast<int>(col);
}

void LogLine::fail(std::size_t pos, const std::string& field, const std::string& problem) const {
  throw InputError(path ? *path : std::string(), line, column(pos), field, problem);
}

void for_each_log_line(const std::string& text, const std::string& path,
                       const std::function<void(const LogLine&)>& each) {
  std::string stripped;
  std::vector<std::pair<std::size_t, int>> removed;
  LogLine l;
  l.path = &path;
  l.removed = &removed;
  int line = 1;
  std::size_t line_start = 0, seg_begin = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const bool end_of_line = i == text.size() || text[i] == '\n';
    if (!end_of_line && text[i] != '\r') continue;
    const std::string_view seg(text.data() + seg_begin, i - seg_begin);  // one line, or one bar update of it
    if (!blank(seg)) {
      std::size_t prefix = 0;
      for (int n = 0; n < 2; ++n)  // srun's label, then torchrun's
        if (const std::size_t p = rank_prefix_length(seg.substr(prefix))) prefix += p;
      std::string_view stream = seg.substr(0, prefix);
      while (!stream.empty() && stream.front() == ' ') stream.remove_prefix(1);
      const std::string_view rest = seg.substr(prefix);
      l.line = line;
      l.stream = stream;
      l.first_column = static_cast<int>(seg_begin - line_start + prefix + 1);
      if (rest.find('\x1b') == std::string_view::npos) {
        removed.clear();
        l.text = rest;
      } else {
        remove_colour_codes(rest, stripped, removed);
        l.text = stripped;
      }
      if (!blank(l.text)) each(l);
    }
    seg_begin = i + 1;
    if (end_of_line) {
      ++line;
      line_start = i + 1;
    }
  }
}

std::size_t skip_spaces(std::string_view text, std::size_t pos) {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
  return pos;
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string excerpt(std::string_view token) {
  std::string out;
  for (char c : token.substr(0, 24)) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
  if (token.size() > 24) out += "...";
  return out;
}

NumberAt number_at(const LogLine& l, std::size_t pos, const std::string& field, bool thousands) {
  const std::string_view t = l.text;
  NumberAt n;
  n.begin = skip_spaces(t, pos);
  std::size_t end = n.begin;
  auto digit_group_follows = [&](std::size_t comma) {  // ",543" inside "6,543"
    for (std::size_t k = comma + 1; k <= comma + 3; ++k)
      if (k >= t.size() || !is_digit(t[k])) return false;
    return comma + 4 >= t.size() || !is_digit(t[comma + 4]);
  };
  auto stops = [&](std::size_t k) {
    const char c = t[k];
    if (c == ',' && thousands && k > n.begin && is_digit(t[k - 1]) && digit_group_follows(k)) return false;
    return c == ' ' || c == '\t' || c == '|' || c == ',' || c == ']' || c == '}' || c == ')' || c == '\'' || c == '"';
  };
  while (end < t.size() && !stops(end)) ++end;
  n.end = end;
  std::string digits;
  for (std::size_t k = n.begin; k < end; ++k)
    if (t[k] != ',') digits += t[k];
  const std::string_view token = t.substr(n.begin, end - n.begin);
  // A message shows the token up to the next space: "12[rank1]:" says what happened, "12[rank1" less so.
  const std::string_view shown = t.substr(n.begin, std::min(t.size(), t.find_first_of(" \t", n.begin)) - n.begin);
  if (token.empty()) l.fail(n.begin, field, "expected a number, got the end of the field (truncated line?)");
  const char* first = digits.data();
  if (!digits.empty() && digits[0] == '+') ++first;
  const auto r = std::from_chars(first, digits.data() + digits.size(), n.value);
  if (r.ec == std::errc::result_out_of_range)
    l.fail(n.begin, field, "expected a finite number, got '" + excerpt(shown) + "'");
  if (r.ec != std::errc() || r.ptr != digits.data() + digits.size())
    l.fail(n.begin, field, "expected a number, got '" + excerpt(shown) + "'");
  if (!std::isfinite(n.value)) l.fail(n.begin, field, "expected a finite number, got '" + excerpt(shown) + "'");
  return n;
}

double checked_step_seconds(double seconds, const LogLine& l, std::size_t at, const std::string& field) {
  if (!(seconds > 0)) l.fail(at, field, "expected a positive time per step, got " + number_text(seconds) + " s");
  if (!std::isfinite(seconds) || seconds > kMaxStepSeconds)
    l.fail(at, field, "a step of " + number_text(seconds) + " s is absurd (more than 1e5 s): wrong units?");
  return seconds;
}

std::optional<std::size_t> after_word(std::string_view text, std::string_view key, std::size_t from) {
  for (std::size_t at = text.find(key, from); at != std::string_view::npos; at = text.find(key, at + 1))
    if (at == 0 || !is_word_char(text[at - 1])) return at + key.size();
  return std::nullopt;
}

std::optional<long long> integer_at(std::string_view text, std::size_t pos) {
  pos = skip_spaces(text, pos);
  long long v = 0;
  const auto r = std::from_chars(text.data() + pos, text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr == text.data() + pos || v < 0) return std::nullopt;
  return v;
}

}  // namespace ptp::predict::training_log
