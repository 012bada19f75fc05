#pragma once
// One name table per project enum: each enumerator once, with the name it is written as (job specs,
// dataset rows, flags, output) and what it means. Parsing, printing, help text and "did you mean"
// errors read the table, so a new enumerator is one row; switches over the enum list every
// enumerator (no `default:`), so -Wswitch names each place that must decide what it does.
#include <string>
#include <string_view>
#include <vector>

namespace ptp::vocab {

template <class E>
struct EnumName {
  E value;
  const char* name;
  const char* description;  // "" when the name says it all
};

template <class E>
using EnumNames = std::vector<EnumName<E>>;

// The name of `value`; "?" only for a value the table lacks (tests/vocab checks every table).
template <class E>
const char* name_of(const EnumNames<E>& table, E value) {
  for (const auto& e : table)
    if (e.value == value) return e.name;
  return "?";
}

// The enumerator written as `name` (exact, case-sensitive), or nullptr.
template <class E>
const E* find_named(const EnumNames<E>& table, std::string_view name) {
  for (const auto& e : table)
    if (name == e.name) return &e.value;
  return nullptr;
}

template <class E>
std::vector<std::string> names_of(const EnumNames<E>& table) {
  std::vector<std::string> out;
  for (const auto& e : table) out.emplace_back(e.name);
  return out;
}

// The same lookups for a table of records named by their `id` member (precision policies, memory
// conventions, attention kernels): the record with that id (exact), or nullptr; the ids in order.
template <class T>
const T* find_by_id(const std::vector<T>& table, std::string_view id) {
  for (const auto& r : table)
    if (r.id == id) return &r;
  return nullptr;
}

template <class T>
std::vector<std::string> ids_of(const std::vector<T>& table) {
  std::vector<std::string> out;
  for (const auto& r : table) out.push_back(r.id);
  return out;
}

// "a | b | c"
std::string joined_names(const std::vector<std::string>& names);

// InputError "<what> '<text>': expected a | b | c (did you mean: …?)".
[[noreturn]] void fail_unknown_name(const std::string& what, const std::string& text,
                                    const std::vector<std::string>& names);

// The enumerator written as `text`; InputError naming the choices (and the nearest) otherwise.
template <class E>
E parse_named(const EnumNames<E>& table, const std::string& text, const std::string& what) {
  if (const E* e = find_named(table, text)) return *e;
  fail_unknown_name(what, text, names_of(table));
}

}  // namespace ptp::vocab
