#pragma once
// The arguments a pasted launch file gave its Python script. People paste a Megatron command in
// three forms (docs/launch-import.md): an argument list, a shell command line with `\` continuations,
// or a script of variable assignments (`GPT_ARGS=(...)`, `export TP=8`) and a command using them.
// This reads the part of shell those forms use; anything it cannot evaluate ($(...), a variable the
// file does not set) stays as written and is marked unresolved.
#include <string>
#include <vector>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::launch {

struct Word {
  std::string text;
  int line = 0, column = 0;  // where its first character was written (inside an assignment for expanded words)
  bool unresolved = false;   // holds a substitution or a variable the file does not set
};

// The words after the first `*.py` of the first command that runs one; without such a command and
// when the first command begins with `-`, every word (an argument list, one per line or several);
// otherwise the words of every assignment holding a `--` flag, in file order.
std::vector<Word> script_arguments(const std::string& text, const std::string& file);

}  // namespace ptp::predict::launch
