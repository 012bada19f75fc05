#include "ptp/vocab/yaml_reader.hpp"

#include <yaml-cpp/depthguard.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/suggest.hpp"

namespace ptp::vocab {

namespace {
std::string join_path(const std::string& base, const std::string& key) {
  return base.empty() ? key : base + "." + key;
}
std::string describe(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  std::string s = n.Scalar();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return "'" + s + "'";
}
// Offset of the first byte that is not part of well-formed UTF-8 (RFC 3629), or npos.
std::size_t invalid_utf8_at(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = 0;
    unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c < 0x80) len = 1;
    else if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c == 0xE0) len = 3, lo = 0xA0;
    else if (c >= 0xE1 && c <= 0xEC) len = 3;
    else if (c == 0xED) len = 3, hi = 0x9F;  // no UTF-16 surrogates
    else if (c >= 0xEE && c <= 0xEF) len = 3;
    else if (c == 0xF0) len = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) len = 4;
    else if (c == 0xF4) len = 4, hi = 0x8F;
    else return i;
    if (i + len > s.size()) return i;
    for (std::size_t k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return i;
    }
    i += len;
  }
  return std::string::npos;
}
// yaml-cpp keeps both entries of a repeated key and node[key] answers with one of them, so an edit
// made lower in a file could be silently ignored. Aliases share nodes (and can be cyclic or
// exponential), so each node is visited once, known by its position and type (yaml-cpp nodes have
// no hashable identity).
void reject_duplicate_keys(const YAML::Node& root, const std::string& file) {
  std::set<std::pair<int, int>> seen;
  std::vector<std::pair<YAML::Node, std::string>> todo{{root, ""}};
  while (!todo.empty()) {
    auto [node, path] = std::move(todo.back());
    todo.pop_back();
    if (!node.IsMap() && !node.IsSequence()) continue;
    if (!seen.insert({node.Mark().pos, static_cast<int>(node.Type())}).second) continue;
    if (node.IsSequence()) {
      std::size_t i = 0;
      for (const auto& e : node) todo.push_back({e, path + "[" + std::to_string(i++) + "]"});
      continue;
    }
    std::map<std::string, int> first_line;
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) continue;  // check_keys refuses these where they matter
      const std::string& key = kv.first.Scalar();
      const auto& at = kv.first.Mark();
      if (const auto [it, fresh] = first_line.emplace(key, at.line + 1); !fresh)
        throw InputError(file, at.line + 1, at.column + 1, join_path(path, key),
                         "duplicate key (first given at line " + std::to_string(it->second) + ")");
      todo.push_back({kv.second, join_path(path, key)});
    }
  }
}
}  // namespace

YamlReader YamlReader::load_string(const std::string& text, const std::string& name) {
  // Names and ids from the file end up in JSON output and messages: only UTF-8 text is accepted.
  if (const auto bad = invalid_utf8_at(text); bad != std::string::npos) {
    const auto nl = bad == 0 ? std::string::npos : text.rfind('\n', bad - 1);
    const std::size_t bol = nl == std::string::npos ? 0 : nl + 1;
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bol), '\n');
    static const char* const hex = "0123456789ABCDEF";
    const auto byte = static_cast<unsigned char>(text[bad]);
    throw InputError(name, static_cast<int>(line), static_cast<int>(bad - bol + 1), "",
                     std::string("not UTF-8 text (byte 0x") + hex[byte >> 4] + hex[byte & 15] + ")");
  }
  try {
    YAML::Node root = YAML::Load(text);
    reject_duplicate_keys(root, name);
    return YamlReader(root, name, "");
  } catch (const YAML::DeepRecursion& e) {  // yaml-cpp's message for it is just "bad file"
    throw InputError(name, e.mark.line + 1, e.mark.column + 1, "",
                     "YAML nested too deep (" + std::to_string(e.depth()) + " levels)");
  } catch (const YAML::Exception& e) {
    throw InputError(name, e.mark.line + 1, e.mark.column + 1, "", "YAML syntax error: " + e.msg);
  }
}

YamlReader YamlReader::load_file(const std::string& path, std::size_t max_bytes) {
  return load_document(read_text_file(path, max_bytes, "YAML text"), path);
}

YamlReader YamlReader::load_document(const std::string& text, const std::string& name) {
  auto reader = load_string(text, name);
  if (!reader.node_.IsDefined() || reader.node_.IsNull())
    throw InputError(name, 0, 0, "", "empty document, expected a YAML mapping");
  return reader;
}

int YamlReader::line() const { return node_.IsDefined() ? node_.Mark().line + 1 : 0; }
int YamlReader::column() const { return node_.IsDefined() ? node_.Mark().column + 1 : 0; }

void YamlReader::fail(const std::string& problem) const {
  int l = line(), c = column();
  if (l <= 0) c = 0;
  throw InputError(file_, l, c, path_, problem);
}

void YamlReader::expect_map() const {
  if (!node_.IsMap()) fail("expected a mapping, got " + describe(node_));
}

bool YamlReader::has(const std::string& key) const {
  if (!node_.IsMap()) return false;
  auto n = node_[key];
  return n.IsDefined() && !n.IsNull();
}

std::vector<std::string> YamlReader::keys() const {
  std::vector<std::string> out;
  if (!node_.IsMap()) return out;
  for (const auto& kv : node_) {
    if (kv.first.IsScalar()) out.push_back(kv.first.Scalar());
  }
  return out;
}

YamlReader YamlReader::child(const std::string& key) const {
  expect_map();
  auto n = node_[key];
  if (!n.IsDefined() || n.IsNull()) {
    throw InputError(file_, line(), column(), join_path(path_, key), "missing required field");
  }
  return YamlReader(n, file_, join_path(path_, key));
}

std::optional<YamlReader> YamlReader::optional_child(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return YamlReader(node_[key], file_, join_path(path_, key));
}

YamlReader YamlReader::element(std::size_t index) const {
  if (!node_.IsSequence()) fail("expected a list, got " + describe(node_));
  return YamlReader(node_[index], file_, path_ + "[" + std::to_string(index) + "]");
}

std::string YamlReader::as_string() const {
  if (!node_.IsScalar()) fail("expected a string, got " + describe(node_));
  // Escapes in quoted scalars ("\ud800") can still produce ill-formed UTF-8.
  if (invalid_utf8_at(node_.Scalar()) != std::string::npos) fail("not UTF-8 text (check \\u/\\x escapes)");
  return node_.Scalar();
}

double YamlReader::as_number(double min, double max) const {
  if (!node_.IsScalar()) fail("expected a number, got " + describe(node_));
  const std::string& s = node_.Scalar();
  double v = 0;
  try {
    v = node_.as<double>();
  } catch (const YAML::Exception&) {
    fail("expected a number, got " + describe(node_));
  }
  if (!std::isfinite(v)) fail("expected a finite number, got '" + s + "'");
  if (v < min || v > max) {
    std::ostringstream msg;
    msg << "value " << s << " out of range, expected " << min << " .. " << max;
    fail(msg.str());
  }
  return v;
}

std::int64_t YamlReader::as_int(std::int64_t min, std::int64_t max) const {
  if (!node_.IsScalar()) fail("expected an integer, got " + describe(node_));
  std::int64_t v = 0;
  try {
    v = node_.as<std::int64_t>();
  } catch (const YAML::Exception&) {
    // Accept integral values written in exponent form (1e6) but nothing fractional.
    double d = 0;
    try {
      d = node_.as<double>();
    } catch (const YAML::Exception&) {
      fail("expected an integer, got " + describe(node_));
    }
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e18)
      fail("expected an integer, got " + describe(node_));
    v = static_cast<std::int64_t>(d);
  }
  if (v < min || v > max)
    fail("value " + std::to_string(v) + " out of range, expected " + std::to_string(min) + " .. " +
         std::to_string(max));
  return v;
}

bool YamlReader::as_bool() const {
  if (!node_.IsScalar()) fail("expected true or false, got " + describe(node_));
  try {
    return node_.as<bool>();
  } catch (const YAML::Exception&) {
    fail("expected true or false, got " + describe(node_));
  }
}

std::vector<double> YamlReader::as_number_list(double min, double max) const {
  if (!node_.IsSequence()) fail("expected a list of numbers, got " + describe(node_));
  std::vector<double> out;
  for (std::size_t i = 0; i < node_.size(); ++i) out.push_back(element(i).as_number(min, max));
  return out;
}

std::string YamlReader::get_string(const std::string& key, const std::string& fallback) const {
  auto c = optional_child(key);
  return c ? c->as_string() : fallback;
}
double YamlReader::get_number(const std::string& key, double min, double max, double fallback) const {
  auto c = optional_child(key);
  return c ? c->as_number(min, max) : fallback;
}
std::int64_t YamlReader::get_int(const std::string& key, std::int64_t min, std::int64_t max,
                                 std::int64_t fallback) const {
  auto c = optional_child(key);
  return c ? c->as_int(min, max) : fallback;
}
bool YamlReader::get_bool(const std::string& key, bool fallback) const {
  auto c = optional_child(key);
  return c ? c->as_bool() : fallback;
}

void YamlReader::check_keys(const std::vector<std::string>& allowed) const {
  expect_map();
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar()) fail("mapping keys must be plain strings");
    const std::string key = kv.first.Scalar();
    bool ok = false;
    for (const auto& a : allowed) ok = ok || a == key;
    if (!ok) {
      throw InputError(file_, kv.first.Mark().line + 1, kv.first.Mark().column + 1, join_path(path_, key),
                       "unknown key" + did_you_mean(key, allowed));
    }
  }
}

}  // namespace ptp::vocab
