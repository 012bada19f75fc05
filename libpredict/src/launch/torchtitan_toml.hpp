#pragma once
// A torchtitan TOML job config as parsed by toml++, with the table of keys ptp reads and typed access
// that names the key and its line in every refusal. Key names and defaults: torchtitan/config/
// job_config.py at pytorch/torchtitan e347b1e5e6b6941d789d16d340145294d82dc71e (2026-02-15, the last
// TOML-configured commit: the next moved to Python config registries); [float8] (before 5b5d46856,
// 2025-09-26) and training.batch_size (before local_batch_size) are the older names, read too.
#include <toml++/toml.h>

#include <string>
#include <string_view>
#include <vector>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::launch {

struct TitanKey {
  std::string_view path;  // dotted, as toml::at_path takes it
  toml::node_type type;
  std::string_view becomes;
};
const std::vector<TitanKey>& titan_key_table();

// The zoo model torchtitan's [model] name and flavor train ("" when configs/models has none).
std::string_view titan_zoo_model(std::string_view name, std::string_view flavor);
std::string titan_flavors();  // "llama3 8B, ..." for messages

class Toml {
 public:
  Toml(const toml::table& t, std::string file) : t_(t), file_(std::move(file)) {}
  // The node at `path` of its row's type (refused otherwise), or null when the file leaves it out.
  const toml::node* at(std::string_view path) const;
  long long integer(std::string_view path, long long fallback) const;
  bool flag(std::string_view path, bool fallback) const;
  std::string text(std::string_view path, const std::string& fallback) const;
  std::vector<std::string> strings(std::string_view path, std::vector<std::string> fallback) const;
  static std::string name(std::string_view path);  // "[training] seq_len", as the file writes it
  std::string where(const toml::node& n) const;    // "file:line:col"
  [[noreturn]] void fail(const toml::node& n, std::string_view path, const std::string& problem) const;
  const std::string& file() const { return file_; }
  // Keys of the file that are neither read nor inert (sections that do not change the step), dotted.
  std::vector<std::string> unread_keys() const;

 private:
  const toml::table& t_;
  std::string file_;
};

std::string toml_value_text(const toml::node& n);  // 8, true, 'bfloat16'

}  // namespace ptp::predict::launch
