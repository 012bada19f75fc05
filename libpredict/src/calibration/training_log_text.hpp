#pragma once
// The lines of a training log as its format readers see them: split at '\n' and at the '\r' of a
// progress-bar update, without the rank prefix a launcher adds and without terminal colour codes,
// yet every position still maps to the line and column of the file, so an error points at the
// byte the user sees in an editor.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::training_log {

struct LogLine {
  const std::string* path = nullptr;
  int line = 0;             // 1-based, counted at '\n' only: the '\r' updates of a bar share a line
  std::string_view stream;  // the rank prefix as written ("[rank3]:", "3:", "0: [default0]:"), "" when none
  std::string_view text;    // after the prefix, colour codes removed

  int column(std::size_t pos) const;  // 1-based column in the file of text[pos]
  [[noreturn]] void fail(std::size_t pos, const std::string& field, const std::string& problem) const;

  int first_column = 1;
  const std::vector<std::pair<std::size_t, int>>* removed =
      nullptr;  // (position in text, bytes of colour codes cut there)
};

// Calls `each` for every non-blank line (or bar update) of `text` in order.
void for_each_log_line(const std::string& text, const std::string& path,
                       const std::function<void(const LogLine&)>& each);

// The token at text[pos] (spaces skipped) up to the next space or one of | , ] } ) ' " as a
// number; an InputError at its column naming `field` unless the whole token is a finite number.
// With `thousands`, commas between digit groups are part of it ("6,543").
struct NumberAt {
  double value = 0;
  std::size_t begin = 0, end = 0;
};
NumberAt number_at(const LogLine& l, std::size_t pos, const std::string& field, bool thousands = false);

// Longer than any step of a real job (a day is 86 400 s): a bigger figure is a unit mix-up or a
// corrupted line, and taken as a calibration it would multiply every prediction by it.
inline constexpr double kMaxStepSeconds = 1e5;

// A time per step that a calibration can use: positive, finite and at most kMaxStepSeconds;
// otherwise an InputError at text[at] naming `field`.
double checked_step_seconds(double seconds, const LogLine& l, std::size_t at, const std::string& field);

// The position just past the first `key` in `text` that starts a word (no letter, digit or _ before it).
std::optional<std::size_t> after_word(std::string_view text, std::string_view key, std::size_t from = 0);

// The unsigned integer at text[pos] (spaces skipped), or nullopt.
std::optional<long long> integer_at(std::string_view text, std::size_t pos);

std::size_t skip_spaces(std::string_view text, std::size_t pos);

// `v` with up to 6 significant digits ("0.125", "1e+06"), for messages and notes.
std::string number_text(double v);

// A token for a message: at most 24 bytes, control bytes as '?'.
std::string excerpt(std::string_view token);

}  // namespace ptp::predict::training_log
