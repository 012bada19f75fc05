// ptp._core: the Python package's one door into libpredict. It takes what a ptp-predict command line
// takes and returns what it prints, so the package's answers are the CLI's by construction; the
// pure-Python modules (python/ptp) give them types. The GIL is released while libpredict works.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <exception>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "ptp/predict/learned/bundle.hpp"
#include "ptp/predict/output.hpp"
#include "ptp/predict/predict_session.hpp"
#include "ptp/predict/predictor.hpp"
#include "ptp/predict/training_log.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/hardware.hpp"
#include "ptp/vocab/version.hpp"

namespace py = pybind11;
using ptp::predict::PredictRequest;

namespace {

// A loaded catalog and bundle. Predictor answers are const, so one Session serves every thread.
class Session {
 public:
  Session(const std::string& config_dir, const std::string& bundle, bool analytical)
      : config_dir_(config_dir.empty() ? ptp::vocab::config_root() : config_dir),
        bundle_(analytical ? std::string()
                           : (bundle.empty() ? ptp::predict::default_bundle_dir(config_dir_) : bundle)),
        predictor_(std::make_unique<ptp::predict::Predictor>(config_dir_, bundle_, !analytical)) {}

  // What `ptp-predict` prints for this request: (stdout, stderr lines, exit code).
  std::tuple<std::string, std::vector<std::string>, int> run(const PredictRequest& request) const {
    ptp::predict::PredictOutcome out;
    {
      py::gil_scoped_release release;
      out = ptp::predict::run_predictions(request, *predictor_);
    }
    return {std::move(out.stdout_text), std::move(out.stderr_lines), out.exit_code};
  }

 private:
  std::string config_dir_, bundle_;
  std::unique_ptr<const ptp::predict::Predictor> predictor_;
};

// The request a command line makes, from the package's keyword arguments.
PredictRequest make_request(const std::vector<std::string>& job_files, const std::vector<std::string>& job_texts,
                            const std::vector<std::string>& sets, const std::vector<std::string>& unsets,
                            const std::vector<std::string>& sweeps, const std::string& format,
                            const std::string& calibrate, const std::vector<std::string>& calibrate_logs,
                            const std::string& log_format, bool search, const std::string& objective, int top,
                            const std::string& space, int threads) {
  PredictRequest req;
  req.job_files = job_files;
  req.job_texts = job_texts;
  req.overrides = ptp::predict::parse_overrides(unsets, sets);
  for (const auto& s : sweeps) req.sweeps.push_back(ptp::predict::parse_sweep_axis(s));
  req.format = format;
  req.calibrate_path = calibrate;
  req.calibrate_logs = calibrate_logs;
  req.log_format = log_format;
  req.search = search;
  req.search_options.objective = ptp::predict::parse_search_objective(objective);
  req.search_options.top = top;
  req.search_options.space_path = space;
  req.threads = threads;
  return req;
}

// The warm-up rule of --calibrate-log on steps a training loop timed: (median s, spread, dropped).
std::tuple<double, double, int> steady_state(const std::vector<double>& seconds, const std::string& source) {
  const auto s = ptp::predict::steady_step_of(seconds, source);
  return {s.step_s, s.spread, s.steps_dropped};
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "ptp's prediction core (libpredict); use the ptp package, not this module";
  // InputError becomes ptp.JobSpecError with the parts of its message.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ptp::vocab::InputError& e) {
      const py::object cls = py::module_::import("ptp.errors").attr("JobSpecError");
      const py::object err = cls(e.what(), e.file(), e.field(), e.line(), e.column());
      PyErr_SetObject(cls.ptr(), err.ptr());
    }
  });
  py::class_<PredictRequest>(m, "Request");
  m.def("make_request", &make_request, py::arg("job_files"), py::arg("job_texts"), py::arg("sets"),
        py::arg("unsets"), py::arg("sweeps"), py::arg("format"), py::arg("calibrate"), py::arg("calibrate_logs"),
        py::arg("log_format"), py::arg("search"), py::arg("objective"), py::arg("top"), py::arg("space"),
        py::arg("threads"));
  py::class_<Session>(m, "Session")
      .def(py::init<const std::string&, const std::string&, bool>(), py::arg("config_dir"), py::arg("bundle"),
           py::arg("analytical"))
      .def("run", &Session::run, py::arg("request"));
  m.def("steady_state", &steady_state, py::arg("seconds"), py::arg("source"));
  m.attr("min_timed_steps") = ptp::predict::training_log::kMinSteadySteps + 1;
  m.def("version", [] { return ptp::vocab::version_line("ptp", "output schema " + std::to_string(ptp::predict::kOutputSchemaVersion)); });
  m.attr("output_schema") = ptp::predict::kOutputSchemaVersion;
}
