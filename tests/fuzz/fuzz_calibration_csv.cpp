// --calibrate MEASURED.csv: the measured-steps reader (header, job paths, step times) and the fit
// on whatever it accepts. The step parts are synthetic (a fixed split of each measured step's
// neighbourhood) since the fuzzer must not read job files; what is fuzzed is the CSV and the fit's
// numerical robustness to any positive time.

#include <cmath>

#include "fuzz_common.hpp"
#include "ptp/predict/calibration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptp::predict;
  const std::string text = ptp::fuzz::text_of(data, size);
  ptp::fuzz::expect_clean("measured.csv", [&] {
    const auto steps = parse_measured_steps(text, "measured.csv");
    if (steps.empty()) ptp::fuzz::finding("an empty measured-steps file was accepted");
    std::vector<CalibrationPoint> points;
    for (const auto& s : steps) {
      if (!(s.step_time_s > 0) || !std::isfinite(s.step_time_s)) ptp::fuzz::finding("a non-positive step time was accepted");
      if (s.job_path.empty()) ptp::fuzz::finding("an empty job path was accepted");
      StepParts parts;  // synthetic: 60 % GEMM, 25 % memory-bound, 10 % communication, 5 % host of 0.1 s
      parts.gemm = 0.06, parts.memory_bound = 0.025, parts.communication = 0.01, parts.host = 0.005;
      parts.gemm_class = points.size() % 2 ? "fp16_bf16" : "tf32";
      points.push_back({"measured.csv:" + std::to_string(s.line), parts, s.step_time_s, {}});
      if (points.size() >= 16) break;
    }
    const Calibrator calibrator(points);
    const double t = calibrator.fit().seconds(points.front().parts);
    if (!(t > 0) || !std::isfinite(t)) ptp::fuzz::finding("calibrated step is not a positive finite time");
    if (calibrator.fit_residual() > calibrator.uncalibrated_residual() + 1e-9)
      ptp::fuzz::finding("calibration made its own points worse");
  });
  return 0;
}
