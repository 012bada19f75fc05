#pragma once
// Typed, located access to YAML documents. Every failure is an InputError naming the file, the
// line:column of the offending node, the dotted field path and what was expected. yaml-cpp's own
// as<T>(fallback) silently swallows malformed values, so it is never used here.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptp::vocab {

class YamlReader {
 public:
  YamlReader(YAML::Node node, std::string file, std::string path)
      : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)) {}

  // Parses a file (or a string when reading in-memory text); errors carry line:column.
  static YamlReader load_file(const std::string& path, std::size_t max_bytes = 4u << 20);
  static YamlReader load_string(const std::string& text, const std::string& name);
  // load_string refusing an empty document, as load_file does: text that stands for a file.
  static YamlReader load_document(const std::string& text, const std::string& name);

  bool is_map() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }
  bool has(const std::string& key) const;
  std::vector<std::string> keys() const;
  std::size_t size() const { return node_.size(); }

  YamlReader child(const std::string& key) const;  // required
  std::optional<YamlReader> optional_child(const std::string& key) const;
  YamlReader element(std::size_t index) const;

  // Scalars of this node.
  std::string as_string() const;
  double as_number(double min, double max) const;  // rejects NaN/Inf and out-of-range values
  std::int64_t as_int(std::int64_t min, std::int64_t max) const;
  bool as_bool() const;
  std::vector<double> as_number_list(double min, double max) const;

  // Shorthands for map fields.
  std::string get_string(const std::string& key) const { return child(key).as_string(); }
  std::string get_string(const std::string& key, const std::string& fallback) const;
  double get_number(const std::string& key, double min, double max) const {
    return child(key).as_number(min, max);
  }
  double get_number(const std::string& key, double min, double max, double fallback) const;
  std::int64_t get_int(const std::string& key, std::int64_t min, std::int64_t max) const {
    return child(key).as_int(min, max);
  }
  std::int64_t get_int(const std::string& key, std::int64_t min, std::int64_t max, std::int64_t fallback) const;
  bool get_bool(const std::string& key, bool fallback) const;

  // Rejects keys outside `allowed` (with a suggestion) — typos must not be silently ignored.
  void expect_map() const;
  void check_keys(const std::vector<std::string>& allowed) const;

  [[noreturn]] void fail(const std::string& problem) const;
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  int line() const;
  int column() const;
  const YAML::Node& node() const { return node_; }

 private:
  YAML::Node node_;
  std::string file_;
  std::string path_;
};

}  // namespace ptp::vocab
