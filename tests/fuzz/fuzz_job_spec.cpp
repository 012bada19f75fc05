// Job spec YAML through what ptp-predict runs: load the file, apply --set/--sweep, parse, resolve
// against the catalogs (GPU, fabric, model zoo), predict analytically and render. The input is the
// job file; leading comment lines can carry flags, so shipped jobs are valid seeds as they are:
//   #set key=value       (--set)        #sweep key=v1,v2   (--sweep, at most 16 points in all)
//   #format json|jsonl|csv|table        #trace             (render the Chrome trace too)
// Models are restricted to zoo ids (paths would read arbitrary files; model_yaml fuzzes those).
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "fuzz_common.hpp"
#include "ptp/predict/predict_session.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptp::predict;
  const std::string text = ptp::fuzz::text_of(data, size);
  static const Predictor predictor(ptp::fuzz::config_dir(), "", false);

  static const std::string job_path = ptp::fuzz::scratch_path("fuzz-job.yaml");
  PredictRequest req;
  req.job_files = {job_path};
  bool flags = false;
  double points = 1;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line) && line.rfind('#', 0) == 0;) {
    try {
      if (line.rfind("#set ", 0) == 0) {
        req.overrides.push_back(parse_override(line.substr(5)));
        flags = true;
      } else if (line.rfind("#sweep ", 0) == 0) {
        req.sweeps.push_back(parse_sweep_axis(line.substr(7)));
        points *= static_cast<double>(req.sweeps.back().values.size());
        flags = true;
      } else if (line.rfind("#format ", 0) == 0) {
        req.format = line.substr(8);
        flags = true;
      } else if (line == "#trace") {
        req.trace_path = job_path + ".trace.json";  // rendered, never written by run_predictions
      }
    } catch (const InputError& e) {
      ptp::fuzz::check_message(e.what(), "");
      return 0;
    }
  }
  if (points > 16) return 0;
  for (const auto& ov : req.overrides)
    if (ov.first.rfind("model", 0) == 0) return 0;
  for (const auto& axis : req.sweeps)
    if (axis.key.rfind("model", 0) == 0) return 0;
  if (ptp::fuzz::model_is_a_path(text)) return 0;

  { std::ofstream(job_path, std::ios::binary | std::ios::trunc) << text; }
  // Flag errors (--format, --sweep, a sweep on a json print) name the flag, not the file.
  ptp::fuzz::expect_clean(flags ? "" : "fuzz-job.yaml", [&] {
    const PredictOutcome out = run_predictions(req, predictor);
    if (out.exit_code != 0 && out.exit_code != 3) ptp::fuzz::finding("exit code " + std::to_string(out.exit_code));
    if (req.format == "json" || req.format == "jsonl") {  // non-finite numbers print as null
      std::istringstream rows(req.format == "json" ? std::string() : out.stdout_text);
      std::vector<nlohmann::json> objects;
      if (req.format == "json") objects.push_back(nlohmann::json::parse(out.stdout_text));
      for (std::string row; std::getline(rows, row);) objects.push_back(nlohmann::json::parse(row));
      for (const auto& j : objects) {
        const auto& secs = j.at("iteration").at("seconds");
        if (!secs.is_number() || !(secs.get<double>() > 0)) ptp::fuzz::finding("iteration.seconds = " + secs.dump());
      }
    }
  });
  return 0;
}
