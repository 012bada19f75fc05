// --calibrate-log FILE: the training-log reader on any text, recognised from its lines and read as
// one --log-format chosen by the first byte, so over a run every format's reader sees every input.
// The job shape is fixed and valid (the CLI takes it from the measured job), so rate formats
// convert; what is fuzzed is the log.

#include <cmath>

#include "fuzz_common.hpp"
#include "ptp/predict/training_log.hpp"

namespace {

void check_accepted(const ptp::predict::SteadyStep& s) {
  using ptp::fuzz::finding;
  if (!(s.step_s > 0) || !std::isfinite(s.step_s))
    finding("an accepted log gives a non-positive or non-finite step time");
  if (s.step_s > 1e5) finding("an accepted log gives a step above 1e5 s");
  if (!std::isfinite(s.spread) || s.spread < 0) finding("an accepted log gives a negative or non-finite spread");
  if (s.steps_used < 1) finding("an accepted log uses no step");
  if (s.steps_used + s.steps_dropped != s.steps_logged) finding("used + dropped steps differ from the steps logged");
  if (s.steps_logged > 1 && s.steps_used < 3) finding("fewer than 3 steady-state steps were accepted");
  for (const auto& n : s.notes)
    if (n.empty() || n.find('\n') != std::string::npos) finding("a note is empty or not one line: " + n);
  for (const auto& x : s.settings)
    if (x.field.empty() || x.value.empty() || x.line < 1) finding("a setting without field, value or line");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptp::predict;
  const std::string text = ptp::fuzz::text_of(data, size);
  const LogJobShape shape{256, 2048, 64, 2};
  ptp::fuzz::expect_clean("run.log", [&] { check_accepted(parse_training_log(text, "run.log", std::nullopt, shape)); });
  if (size > 0) {
    const LogFormat forced = log_format_names()[data[0] % log_format_names().size()].value;
    ptp::fuzz::expect_clean("run.log", [&] { check_accepted(parse_training_log(text, "run.log", forced, shape)); });
  }
  return 0;
}
