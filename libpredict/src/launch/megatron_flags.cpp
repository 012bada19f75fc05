// Megatron-LM's argument parsing, as far as ptp needs it: flag names checked against
// megatron/training/arguments.py at NVIDIA/Megatron-LM 67f3515c8a0539d38c23f59dd8b85efdcbb3af3d
// (2026-01-29, the last commit that lists them by hand; d98e8a64ddf34856e74b24714e3bedb2f5a39553
// generates the same names from its config dataclasses).
#include "megatron_flags.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::launch {

namespace {

// Flags that set what the step time does not depend on (learning rate and schedule, data, tokenizer
// files, checkpoints, logging, evaluation, initialisation): read for nothing, and not reported as
// unread. A prefix covers its family (--lr covers --lr-decay-style, --lr-warmup-iters, ...).
constexpr std::string_view kInertPrefixes[] = {
    // optimiser hyper-parameters and schedule
    "--lr", "--min-lr", "--weight-decay", "--start-weight-decay", "--end-weight-decay", "--adam-", "--clip-grad",
    // initialisation
    "--init-method", "--seed",
    // data and tokenizer
    "--data-", "--split", "--train-data-path", "--valid-data-path", "--test-data-path", "--mock-data", "--tokenizer-",
    "--vocab-file", "--merge-file", "--num-workers", "--dataloader-type", "--reset-position-ids",
    "--reset-attention-mask", "--eod-mask-loss", "--no-mmap-bin-files", "--no-create-attention-mask-in-dataloader",
    // checkpoints
    "--save", "--load", "--pretrained-checkpoint", "--no-load-", "--use-checkpoint-args", "--ckpt-", "--dist-ckpt-",
    "--auto-detect-ckpt-format",
    // evaluation, logging, profiling, exit, process group set-up
    "--eval-", "--log-", "--tensorboard-", "--wandb-", "--timing-log-", "--profile", "--use-pytorch-profiler", "--exit-",
    "--distributed-backend", "--distributed-timeout-minutes", "--manual-gc",
    // numerics that cost nothing (RoPE base and fraction, the norm's epsilon), the default model code path
    "--rotary-base", "--rotary-percent", "--norm-epsilon", "--use-mcore-models",
};

bool inert(std::string_view flag) {
  for (auto prefix : kInertPrefixes)
    if (flag.substr(0, prefix.size()) == prefix) return true;
  return false;
}

const MegatronFlag* find_row(std::string_view flag) {
  for (const auto& row : megatron_flag_table())
    if (row.flag == flag) return &row;
  return nullptr;
}

// A flag, not a negative number given as a value.
bool is_flag(const Word& w) {
  if (w.text.size() < 2 || w.text[0] != '-') return false;
  const char c = w.text[1];
  return !(std::isdigit(static_cast<unsigned char>(c)) || c == '.');
}

}  // namespace

MegatronFlags::MegatronFlags(const std::vector<Word>& words, std::string file) : file_(std::move(file)) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    const Word& w = words[i];
    if (!is_flag(w)) {
      if (w.unresolved)
        unset_vars.push_back(w.text);
      else
        not_read.push_back("'" + w.text + "'");
      continue;
    }
    const auto eq = w.text.find('=');
    GivenFlag g;
    g.flag = w.text.substr(0, eq);
    g.line = g.value_line = w.line, g.column = g.value_column = w.column;
    const MegatronFlag* row = find_row(g.flag);
    if (eq != std::string::npos) {
      g.value = w.text.substr(eq + 1);
      g.value_column = w.column + static_cast<int>(eq) + 1;
      g.unresolved = w.unresolved;
    }
    if (!row) {
      // Megatron's flags with several values (--data-path 0.5 a 0.5 b) take every word up to the next flag.
      if (eq == std::string::npos)
        while (i + 1 < words.size() && !is_flag(words[i + 1])) ++i;
      if (!inert(g.flag)) not_read.push_back(g.flag);
      continue;
    }
    if (row->takes == Takes::nothing && eq != std::string::npos) fail(g, "takes no value (Megatron's is a switch)");
    if (row->takes == Takes::value && eq == std::string::npos) {
      if (i + 1 >= words.size() || is_flag(words[i + 1])) fail(g, "expects a value");
      const Word& v = words[++i];
      g.value = v.text, g.value_line = v.line, g.value_column = v.column, g.unresolved = v.unresolved;
    }
    const auto [it, fresh] = given_.emplace(g.flag, g);
    if (!fresh) {
      if (it->second.value != g.value)
        warnings.push_back(where(g) + ": " + g.flag + " is given twice (also at line " +
                           std::to_string(it->second.line) + "); the last, " + (g.value.empty() ? g.flag : g.value) +
                           ", is what Megatron reads");
      it->second = g;
    }
  }
}

const GivenFlag* MegatronFlags::get(std::string_view flag) const {
  const auto it = given_.find(flag);
  return it == given_.end() ? nullptr : &it->second;
}

const std::string& MegatronFlags::value(const GivenFlag& g) const {
  if (g.unresolved)
    throw InputError(file_, g.value_line, g.value_column, g.flag,
                     "value '" + g.value + "' uses a variable or command the file does not set; write the value");
  return g.value;
}

long long MegatronFlags::integer(std::string_view flag, long long fallback, long long lo, long long hi) const {
  const GivenFlag* g = get(flag);
  if (!g) return fallback;
  const std::string& v = value(*g);
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno == ERANGE)
    throw InputError(file_, g->value_line, g->value_column, g->flag, "expected an integer, got '" + v + "'");
  if (n < lo || n > hi)
    throw InputError(file_, g->value_line, g->value_column, g->flag,
                     "value " + v + " out of range, expected " + std::to_string(lo) + " .. " + std::to_string(hi));
  return n;
}

std::string MegatronFlags::text(std::string_view flag, const std::string& fallback) const {
  const GivenFlag* g = get(flag);
  return g ? value(*g) : fallback;
}

std::string MegatronFlags::where(const GivenFlag& g) const { return format_location(file_, g.line, g.column); }
std::string MegatronFlags::value_where(const GivenFlag& g) const {
  return format_location(file_, g.value_line, g.value_column);
}

void MegatronFlags::fail(const GivenFlag& g, const std::string& problem) const {
  throw InputError(file_, g.line, g.column, g.flag, problem);
}

void MegatronFlags::contradiction(const GivenFlag& first, const GivenFlag& second, const std::string& why) const {
  const bool first_later = first.line > second.line || (first.line == second.line && first.column > second.column);
  const GivenFlag& at = first_later ? first : second;
  const GivenFlag& other = first_later ? second : first;
  fail(at, "contradicts " + other.flag + " (line " + std::to_string(other.line) + "): " + why);
}

}  // namespace ptp::predict::launch
