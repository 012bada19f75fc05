#pragma once
// A Megatron-LM argument list parsed as Megatron's argparse parser would (allow_abbrev=False: whole
// flag names only; a repeated flag keeps its last value), with where each flag was written. The
// table of flags it reads is megatron_args.cpp's; megatron_model.cpp reads the model's sizes from it.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ptp/predict/launch_import.hpp"
#include "shell_words.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::launch {

struct GivenFlag {
  std::string flag, value;
  int line = 0, column = 0;              // of the flag
  int value_line = 0, value_column = 0;  // of its value
  bool unresolved = false;               // the value uses a variable the file does not set
};

enum class Takes { nothing, value };

// One flag ptp reads, what it becomes (docs/launch-import.md says the same at more length).
struct MegatronFlag {
  std::string_view flag;
  Takes takes;
  std::string_view becomes;
};
const std::vector<MegatronFlag>& megatron_flag_table();

class MegatronFlags {
 public:
  MegatronFlags(const std::vector<Word>& words, std::string file);

  const GivenFlag* get(std::string_view flag) const;
  bool has(std::string_view flag) const { return get(flag) != nullptr; }
  // The flag's value as an integer within [lo, hi], or `fallback` when it is not given.
  long long integer(std::string_view flag, long long fallback, long long lo = 1,
                    long long hi = 1'000'000'000'000) const;
  std::string text(std::string_view flag, const std::string& fallback) const;
  // The value of a flag that is read, refused when it names a variable the file does not set.
  const std::string& value(const GivenFlag& g) const;

  std::string where(const GivenFlag& g) const;  // "file:line:col" of the flag
  std::string value_where(const GivenFlag& g) const;
  [[noreturn]] void fail(const GivenFlag& g, const std::string& problem) const;
  // `second` cannot be given with `first`: the error points at the later of the two.
  [[noreturn]] void contradiction(const GivenFlag& first, const GivenFlag& second, const std::string& why) const;
  const std::string& file() const { return file_; }

  std::vector<std::string> not_read;    // flags ptp has no use for and stray words, in order
  std::vector<std::string> unset_vars;  // $VARS the file does not set that stand where flags would
  std::vector<std::string> warnings;    // repeated flags

 private:
  std::string file_;
  std::map<std::string, GivenFlag, std::less<>> given_;
};

// The model a Megatron argument list describes (megatron_model.cpp): its sizes into `out.dims`, and
// `out.model_yaml` when they define the whole model (else `out.model_missing` says what is missing).
void read_megatron_model(const MegatronFlags& args, LaunchRead& out);

}  // namespace ptp::predict::launch
