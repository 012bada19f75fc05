// Maximum a posteriori fit of the step-part factors (calibration.hpp) by damped Gauss-Newton. The
// problem has at most 5 + (math classes) parameters, so the normal equations are solved directly.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ptp/predict/calibration.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

// A factor outside 1/4..4 is more than a stack difference; the point probably describes another job.
constexpr double kImplausibleLogFactor = 1.3862943611198906;  // log 4
constexpr double kMaxLogFactor = 30;

// The fitted parameters: theta[0] = c, then (with two or more configurations) g, m, e, h and one
// g[math] per class when two or more classes have points.
struct Parameters {
  bool departures = false;
  std::vector<std::string> classes;
  std::vector<double> sigma;  // prior sigma of each parameter
  std::size_t size() const { return sigma.size(); }
};

struct Factors {
  double stack = 1, gemm = 1, memory_bound = 1, communication = 1, host = 1;  // departures from the stack factor
};

Factors factors_for(const std::vector<double>& theta, const Parameters& par, const std::string& gemm_class) {
  Factors f;
  f.stack = std::exp(theta[0]);
  if (!par.departures) return f;
  double g = theta[1];
  for (std::size_t i = 0; i < par.classes.size(); ++i)
    if (par.classes[i] == gemm_class) g += theta[5 + i];
  f.gemm = std::exp(g), f.memory_bound = std::exp(theta[2]), f.communication = std::exp(theta[3]), f.host = std::exp(theta[4]);
  return f;
}

// The stack factor scales every part, the overlap window with it; a communication departure above 1
// first uses up the overlap (StepParts::communication_seconds).
double predicted(const StepParts& s, const Factors& f) {
  return f.stack * (f.gemm * s.gemm + f.memory_bound * s.memory_bound + s.communication_seconds(f.communication) +
                    f.host * s.host);
}

// -2 log posterior (up to a constant), normal priors.
double objective(const std::vector<CalibrationPoint>& pts, double noise_var, const std::vector<double>& theta,
                 const Parameters& par) {
  double sum = 0;
  for (const auto& p : pts) {
    const double r = std::log(predicted(p.parts, factors_for(theta, par, p.parts.gemm_class)) / p.measured_s);
    sum += r * r / noise_var;
  }
  for (std::size_t j = 0; j < par.size(); ++j) sum += (theta[j] / par.sigma[j]) * (theta[j] / par.sigma[j]);
  return sum;
}

// Solves A x = b for a symmetric positive definite A (the prior terms keep it so).
std::vector<double> solve_spd(std::vector<std::vector<double>> a, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t j = 0; j < n; ++j) {  // Cholesky, lower triangle in place
    double d = a[j][j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j][k] * a[j][k];
    a[j][j] = std::sqrt(std::max(d, 1e-300));
    for (std::size_t i = j + 1; i < n; ++i) {
      double v = a[i][j];
      for (std::size_t k = 0; k < j; ++k) v -= a[i][k] * a[j][k];
      a[i][j] = v / a[j][j];
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < i; ++k) b[i] -= a[i][k] * b[k];
    b[i] /= a[i][i];
  }
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t k = i + 1; k < n; ++k) b[i] -= a[k][i] * b[k];
    b[i] /= a[i][i];
  }
  return b;
}

std::string percent_factor(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", f);
  return buf;
}

}  // namespace

TransferKey transfer_key(const Prediction& p) {
  char batch[64];
  std::snprintf(batch, sizeof batch, "%g/%d/%d", p.batch_size, p.seq_len, p.grad_accum);
  const auto& l = p.layout;
  return {p.gpu, p.precision, batch,
          std::to_string(l.tensor) + "/" + std::to_string(l.pipeline) + "/" + std::to_string(l.context) + "/" +
              std::to_string(l.virtual_pipeline) + "/" + std::to_string(l.expert) + "/" + sharding_name(l.sharding) + "/" +
              recompute_name(l.activation_checkpointing),
          p.num_gpus};
}

CalibrationFit fit_calibration(const std::vector<CalibrationPoint>& pts, const CalibrationPriors& pri) {
  if (pts.empty()) throw InputError("calibration: no measured steps");
  std::vector<TransferKey> configurations;
  std::vector<std::string> classes;
  for (const auto& p : pts) {
    if (!(p.measured_s > 0) || !std::isfinite(p.measured_s) || !(p.parts.total() > 0))
      throw InputError(p.where + ": cannot calibrate on a step that is not a positive time");
    if (std::find(configurations.begin(), configurations.end(), p.key) == configurations.end()) configurations.push_back(p.key);
    if (std::find(classes.begin(), classes.end(), p.parts.gemm_class) == classes.end()) classes.push_back(p.parts.gemm_class);
  }
  Parameters par;
  par.sigma = {pri.stack};
  if (configurations.size() > 1) {
    par.departures = true;
    par.sigma.insert(par.sigma.end(), {pri.gemm, pri.memory_bound, pri.communication, pri.host});
    if (classes.size() > 1) {
      par.classes = classes;
      par.sigma.insert(par.sigma.end(), classes.size(), pri.gemm_class);
    }
  }
  const std::size_t n = par.size();
  std::vector<double> theta(n, 0.0);
  double current = objective(pts, pri.measurement, theta, par);
  for (int iter = 0; iter < 100; ++iter) {
    std::vector<std::vector<double>> a(n, std::vector<double>(n, 0.0));
    std::vector<double> grad(n, 0.0);
    for (std::size_t j = 0; j < n; ++j) {
      a[j][j] = 1 / (par.sigma[j] * par.sigma[j]);
      grad[j] = theta[j] / (par.sigma[j] * par.sigma[j]);
    }
    for (const auto& p : pts) {
      const Factors f = factors_for(theta, par, p.parts.gemm_class);
      const double t = predicted(p.parts, f);
      const double r = std::log(t / p.measured_s);
      std::vector<double> jac(n, 0.0);  // d log t / d theta
      jac[0] = 1;
      if (par.departures) {
        const double gemm = f.stack * f.gemm * p.parts.gemm / t;
        jac[1] = gemm;
        jac[2] = f.stack * f.memory_bound * p.parts.memory_bound / t;
        // d/d(log e) of e E + max(0, e - 1) O: the hidden part counts from a factor of 1 up (the
        // right-hand slope at the start, else a job whose communication is all hidden never moves e).
        jac[3] = f.stack * f.communication *
                 (p.parts.communication + (f.communication >= 1 ? p.parts.communication_hidden : 0)) / t;
        jac[4] = f.stack * f.host * p.parts.host / t;
        for (std::size_t i = 0; i < par.classes.size(); ++i)
          if (par.classes[i] == p.parts.gemm_class) jac[5 + i] = gemm;
      }
      const double w = 1 / pri.measurement;
      for (std::size_t j = 0; j < n; ++j) {
        grad[j] += w * jac[j] * r;
        for (std::size_t k = 0; k < n; ++k) a[j][k] += w * jac[j] * jac[k];
      }
    }
    for (auto& g : grad) g = -g;
    const auto step = solve_spd(a, grad);
    double scale = 1, next = current;
    std::vector<double> trial(n);
    for (int halvings = 0; halvings < 30; ++halvings, scale /= 2) {
      // A factor of e^30 is already absurd (and warned about); beyond it exp() would overflow.
      for (std::size_t j = 0; j < n; ++j) trial[j] = std::clamp(theta[j] + scale * step[j], -kMaxLogFactor, kMaxLogFactor);
      next = objective(pts, pri.measurement, trial, par);
      if (next < current) break;
    }
    if (!(next < current)) break;
    const bool converged = current - next < 1e-12 * std::max(1.0, current);
    theta = trial;
    current = next;
    if (converged) break;
  }

  CalibrationFit fit;
  fit.points = static_cast<int>(pts.size());
  fit.configurations = static_cast<int>(configurations.size());
  for (const auto& p : pts) fit.sources.push_back(p.where);
  // The search starts at no correction and accepts only steps that lower the objective, so the
  // error on the points never ends above the uncalibrated one.
  fit.log_stack = theta[0];
  if (par.departures) {
    fit.log_gemm = theta[1], fit.log_memory_bound = theta[2], fit.log_communication = theta[3], fit.log_host = theta[4];
    for (std::size_t i = 0; i < par.classes.size(); ++i) fit.log_gemm_class[par.classes[i]] = theta[5 + i];
  }
  double fitted = 0, raw = 0, fitted_step = 0, raw_step = 0;
  for (const auto& p : pts) {
    const double ratio = p.measured_s / p.parts.total(), calibrated = fit.seconds(p.parts);
    if (std::fabs(std::log(ratio)) > kImplausibleLogFactor)
      fit.warnings.push_back(p.where + ": measured step is " + percent_factor(ratio) +
                             " the prediction, more than calibration is meant to explain (is the job file the job that was measured?)");
    fitted += std::pow(std::log(calibrated / p.measured_s), 2);
    raw += std::pow(std::log(ratio), 2);
    fitted_step += std::pow(calibrated / p.measured_s - 1, 2);
    raw_step += std::pow(1 / ratio - 1, 2);
  }
  const auto count = static_cast<double>(pts.size());
  fit.fit_residual = std::sqrt(fitted / count);
  fit.uncalibrated_residual = std::sqrt(raw / count);
  fit.fit_step_error = std::sqrt(fitted_step / count);
  fit.uncalibrated_step_error = std::sqrt(raw_step / count);
  for (const auto& [name, factor] : fit.factors())
    if (std::fabs(std::log(factor)) > kImplausibleLogFactor)
      fit.warnings.push_back("calibration factor " + name + " = " + percent_factor(factor) +
                             " is outside 0.25x..4x: predictions far from the calibration points may not hold");
  return fit;
}

double CalibrationFit::seconds(const StepParts& s) const {
  const auto it = log_gemm_class.find(s.gemm_class);
  const double g = log_gemm + (it == log_gemm_class.end() ? 0 : it->second);
  return std::exp(log_stack) * (std::exp(g) * s.gemm + std::exp(log_memory_bound) * s.memory_bound +
                                s.communication_seconds(std::exp(log_communication)) + std::exp(log_host) * s.host);
}

std::vector<std::pair<std::string, double>> CalibrationFit::factors() const {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [cls, g] : log_gemm_class) out.emplace_back("gemm_" + cls, std::exp(log_stack + log_gemm + g));
  out.emplace_back("gemm", std::exp(log_stack + log_gemm));
  out.emplace_back("memory_bound_kernels", std::exp(log_stack + log_memory_bound));
  out.emplace_back("communication", std::exp(log_stack + log_communication));
  out.emplace_back("host_overhead", std::exp(log_stack + log_host));
  return out;
}

std::string CalibrationFit::method() const { return "log_map_stack_factors"; }

void CalibrationFit::apply(Prediction& p) const {
  if (!p.valid || !(p.iteration_s > 0)) return;
  const StepParts s = step_parts(p);
  const double before = p.iteration_s, after = seconds(s);
  const auto it = log_gemm_class.find(s.gemm_class);
  const double stack = std::exp(log_stack);
  const double fg = stack * std::exp(log_gemm + (it == log_gemm_class.end() ? 0 : it->second));
  const double fm = stack * std::exp(log_memory_bound), fh = stack * std::exp(log_host);
  const double fe = std::exp(log_communication);  // on top of the stack factor, which the window scales with
  const double kernel_gemm = p.gemm_math_share, kernel_factor = fg * kernel_gemm + fm * (1 - kernel_gemm);
  auto& b = p.breakdown;
  for (double* part : {&b.forward, &b.backward, &b.recompute, &b.pp_bubble}) *part *= kernel_factor;
  for (double* part : {&b.optimizer, &b.loss_scaling, &b.precision_casts}) *part *= fm;
  // Exposed communication grows by the factor and, beyond 1x, by the overlap it used up.
  const double exposed_before = s.communication, exposed_after = stack * s.communication_seconds(fe);
  b.communication *= stack * fe;
  if (exposed_before > 0) {
    const double r = exposed_after / exposed_before;
    for (double* part : {&b.communication_exposed, &b.tp_communication, &b.cp_communication, &b.ep_communication,
                         &b.pp_communication, &b.dp_communication})
      *part *= r;
  } else {  // all of it was hidden: what now shows is data-parallel traffic outgrowing its overlap
    b.communication_exposed = exposed_after;
    b.dp_communication = exposed_after;
  }
  b.framework_overhead *= fh;
  for (auto& layer : p.layers) layer.forward_s *= kernel_factor, layer.backward_s *= kernel_factor;
  for (auto& bucket : p.buckets) bucket.ready_s *= kernel_factor, bucket.duration_s *= stack * fe;
  const double r = after / before;
  p.iteration_s = after;
  p.iteration_low_s *= r;
  p.iteration_high_s *= r;
  p.samples_per_second /= r;
  p.tokens_per_second /= r;
  p.tokens_per_second_per_gpu /= r;
  p.mfu /= r;
  p.mfu_precision_peak /= r;
  refresh_totals(p);
  auto& c = p.calibration;
  c.applied = true;
  c.points = points;
  c.configurations = configurations;
  c.sources = sources;
  c.method = method();
  c.factors = factors();
  c.fit_residual = fit_residual;
  c.uncalibrated_residual = uncalibrated_residual;
  c.fit_step_error = fit_step_error;
  c.uncalibrated_step_error = uncalibrated_step_error;
  c.uncalibrated_iteration_s = before;
  for (const auto& w : warnings) p.warnings.push_back(w);
}

Calibrator::Calibrator(const std::vector<CalibrationPoint>& points, const std::vector<std::string>& notes,
                       const CalibrationPriors& priors)
    : fit_(fit_calibration(points, priors)) {
  fit_.warnings.insert(fit_.warnings.end(), notes.begin(), notes.end());
}

void Calibrator::apply(Prediction& p) const {
  if (!p.valid || !(p.iteration_s > 0)) return;
  fit_.apply(p);
  update_energy(p);  // the corrected parts change the phases' times
}

}  // namespace ptp::predict
