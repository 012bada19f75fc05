#pragma once
// How the job-field table's rows are written (job_field_table.cpp), in the named-setter form of
// XGBoost's DMLC_DECLARE_FIELD: Row("cluster.num_gpus", FieldType::integer).bind(...).range(1, 1e6)...
// A row binds the JobSpec member it fills; its type decides how YAML and --set text are read into it
// and how it is written back. Private to libpredict.
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ptp/predict/job_fields.hpp"
#include "ptp/vocab/enum_names.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::detail {

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

// A row under construction.
class Row {
 public:
  Row(std::string key, FieldType type) {
    f_.key = std::move(key);
    f_.type = type;
  }
  Row& range(double lo, double hi) { return f_.min = lo, f_.max = hi, *this; }
  Row& required() { return f_.required = true, *this; }
  Row& always() { return f_.emit = Emit::always, *this; }
  Row& with_section() { return f_.emit = Emit::with_section, *this; }
  Row& derived(std::string how) { return f_.default_text = std::move(how), *this; }
  Row& search(std::string column, int tier, int order) {
    f_.search_column = std::move(column), f_.search_tier = tier, f_.search_order = order;
    return *this;
  }
  Row& noun(std::string n) { return f_.noun = std::move(n), *this; }
  Row& non_empty() { return f_.non_empty = true, *this; }
  Row& help(std::string text) { return f_.help = std::move(text), *this; }
  Row& only_if(std::string (*refuse)(const JobSpec&), std::string applies_to) {
    f_.refuse = refuse, f_.applies_to = std::move(applies_to);
    return *this;
  }
  Row& choices(std::vector<std::string> names) { return f_.choices = std::move(names), *this; }
  Row& derived_here(bool (*when)(const JobSpec&)) { return f_.derived_here = when, *this; }
  // After the value is stored (batch_size and batch_tokens are one micro-batch under two spellings).
  Row& then(void (*after)(JobSpec&)) {
    auto set = f_.set;
    f_.set = [set, after](JobSpec& j, const FieldValue& v) { set(j, v), after(j); };
    return *this;
  }

  // Binds a plain member: `ref` is a generic lambda returning the member for a JobSpec& or const&.
  template <class Ref>
  Row& bind(Ref ref) {
    using T = std::remove_reference_t<decltype(ref(std::declval<JobSpec&>()))>;
    const bool integral = f_.type == FieldType::integer;
    f_.get = [ref, integral](const JobSpec& j) -> FieldValue { return to_value(ref(j), integral); };
    f_.set = [ref](JobSpec& j, const FieldValue& v) { from_value(ref(j), v); };
    static_assert(!std::is_enum_v<T>, "enum members bind with bind_enum");
    return *this;
  }

  // Binds an enum member (E, optional<E> or vector<E>) through its name table.
  template <class Ref, class E>
  Row& bind_enum(Ref ref, const EnumNames<E>& names) {
    f_.choices = names_of(names);
    const EnumNames<E>* table = &names;
    f_.get = [ref, table](const JobSpec& j) -> FieldValue { return enum_value(ref(j), *table); };
    f_.set = [ref, table](JobSpec& j, const FieldValue& v) { enum_from_value(ref(j), v, *table); };
    return *this;
  }

  operator JobField() const { return f_; }

 private:
  template <class T>
  static FieldValue to_value(const T& v, bool integral) {
    if constexpr (is_optional<T>::value) {
      return v ? to_value(*v, integral) : FieldValue{};
    } else if constexpr (std::is_same_v<T, bool>) {
      return v;
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<long long>(v);
    } else if constexpr (std::is_floating_point_v<T>) {
      if (integral) return static_cast<long long>(v);
      return v;
    } else {
      return v;  // std::string, std::vector<std::string>
    }
  }
  template <class T>
  static void from_value(T& member, const FieldValue& v) {
    if constexpr (is_optional<T>::value) {
      if (std::holds_alternative<std::monostate>(v)) {
        member.reset();
      } else {
        typename T::value_type inner{};
        from_value(inner, v);
        member = inner;
      }
    } else if constexpr (std::is_same_v<T, bool>) {
      member = std::get<bool>(v);
    } else if constexpr (std::is_arithmetic_v<T>) {
      member = std::holds_alternative<long long>(v) ? static_cast<T>(std::get<long long>(v))
                                                      : static_cast<T>(std::get<double>(v));
    } else {
      member = std::get<T>(v);
    }
  }
  template <class T, class E>
  static FieldValue enum_value(const T& v, const EnumNames<E>& names) {
    if constexpr (is_optional<T>::value) {
      return v ? FieldValue{std::string(name_of(names, *v))} : FieldValue{};
    } else if constexpr (std::is_enum_v<T>) {
      return std::string(name_of(names, v));
    } else {
      std::vector<std::string> out;
      for (E e : v) out.emplace_back(name_of(names, e));
      return out;
    }
  }
  template <class T, class E>
  static void enum_from_value(T& member, const FieldValue& v, const EnumNames<E>& names) {
    if constexpr (is_optional<T>::value) {
      if (std::holds_alternative<std::monostate>(v)) member.reset();
      else member = parse_named(names, std::get<std::string>(v), "value");
    } else if constexpr (std::is_enum_v<T>) {
      member = parse_named(names, std::get<std::string>(v), "value");
    } else {
      member.clear();
      for (const auto& name : std::get<std::vector<std::string>>(v)) member.push_back(parse_named(names, name, "value"));
    }
  }

  JobField f_;
};

inline Row section(std::string key, std::string help) { return std::move(Row(std::move(key), FieldType::section).help(std::move(help))); }

// The table, in the order the reference and the emitted YAML list the fields.
std::vector<JobField> build_job_field_table();

}  // namespace ptp::predict::detail
