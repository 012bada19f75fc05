// Maximum a posteriori fit of the step-part factors (calibration.hpp) by damped Gauss-Newton. The
// problem has at most 4 + (math classes) parameters, so the normal equations are solved directly.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ptp/predict/calibration.hpp"
#include "ptp/vocab/error.hpp"

namespace ptp {

namespace {

// A factor outside 1/4..4 is more than a stack difference; the point probably describes another job.
constexpr double kImplausibleLogFactor = 1.3862943611198906;  // log 4
constexpr double kMaxLogFactor = 30;

struct Parameters {
  std::vector<std::string> classes;  // g[math] for these, after c, m, e, h
  std::vector<double> sigma;
  std::size_t size() const { return sigma.size(); }
};

struct Factors {
  double gemm, memory_bound, communication, host;
};

Factors factors_for(const std::vector<double>& theta, const Parameters& par, const std::string& gemm_class) {
  double g = 0;
  for (std::size_t i = 0; i < par.classes.size(); ++i)
    if (par.classes[i] == gemm_class) g = theta[4 + i];
  return {std::exp(theta[0] + g), std::exp(theta[0] + theta[1]), std::exp(theta[2]), std::exp(theta[3])};
}

double predicted(const StepParts& s, const Factors& f) {
  return f.gemm * s.gemm + f.memory_bound * s.memory_bound + s.communication_seconds(f.communication) + f.host * s.host;
}

// -2 log posterior (up to a constant). theta[0] (c) has the Student-t prior, the others normal ones.
double objective(const std::vector<CalibrationPoint>& pts, const std::vector<double>& noise_var,
                 const std::vector<double>& theta, const Parameters& par, double dof) {
  double sum = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const double r = std::log(predicted(pts[i].parts, factors_for(theta, par, pts[i].parts.gemm_class)) / pts[i].measured_s);
    sum += r * r / noise_var[i];
  }
  const double scale2 = par.sigma[0] * par.sigma[0];
  sum += (dof + 1) * std::log1p(theta[0] * theta[0] / (dof * scale2));
  for (std::size_t j = 1; j < par.size(); ++j) sum += (theta[j] / par.sigma[j]) * (theta[j] / par.sigma[j]);
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

double CalibrationPriors::transfer_variance(const TransferKey& a, const TransferKey& b) const {
  double v = 0;
  if (a.num_gpus != b.num_gpus) v += gpu_count;
  if (a.gpu != b.gpu) v += gpu_type;
  if (a.precision != b.precision) v += precision;
  if (a.batch != b.batch) v += batch;
  if (a.layout != b.layout) v += layout;
  // Half the mean squared difference of two residuals is the variogram; the noise of "this point
  // stands for that job" is the difference itself, twice it.
  return v == 0 ? measurement : 2 * std::min(same_configuration + v, saturation);
}

CalibrationFit fit_calibration(const std::vector<CalibrationPoint>& pts, const TransferKey& job,
                               const CalibrationPriors& pri) {
  if (pts.empty()) throw InputError("calibration: no measured steps");
  Parameters par;
  par.sigma = {pri.stack_scale, pri.memory_bound, pri.communication, pri.host};
  for (const auto& p : pts) {
    if (!(p.measured_s > 0) || !std::isfinite(p.measured_s) || !(p.parts.total() > 0))
      throw InputError(p.where + ": cannot calibrate on a step that is not a positive time");
    if (std::find(par.classes.begin(), par.classes.end(), p.parts.gemm_class) == par.classes.end()) {
      par.classes.push_back(p.parts.gemm_class);
      par.sigma.push_back(pri.gemm_class);
    }
  }
  const std::size_t n = par.size();
  std::vector<double> noise_var;
  for (const auto& p : pts) noise_var.push_back(pri.transfer_variance(p.key, job));
  std::vector<double> theta(n, 0.0);
  double current = objective(pts, noise_var, theta, par, pri.stack_dof);
  for (int iter = 0; iter < 100; ++iter) {
    std::vector<std::vector<double>> a(n, std::vector<double>(n, 0.0));
    std::vector<double> grad(n, 0.0);
    for (std::size_t j = 1; j < n; ++j) {
      a[j][j] = 1 / (par.sigma[j] * par.sigma[j]);
      grad[j] = theta[j] / (par.sigma[j] * par.sigma[j]);
    }
    {  // Student-t prior on c: its gradient, and a positive curvature (iteratively reweighted)
      const double w = (pri.stack_dof + 1) / (pri.stack_dof * par.sigma[0] * par.sigma[0] + theta[0] * theta[0]);
      a[0][0] = w;
      grad[0] = w * theta[0];
    }
    for (std::size_t pi = 0; pi < pts.size(); ++pi) {
      const auto& p = pts[pi];
      const Factors f = factors_for(theta, par, p.parts.gemm_class);
      const double t = predicted(p.parts, f);
      const double r = std::log(t / p.measured_s);
      std::vector<double> jac(n, 0.0);  // d log t / d theta
      const double gemm = f.gemm * p.parts.gemm / t, mem = f.memory_bound * p.parts.memory_bound / t;
      jac[0] = gemm + mem;
      jac[1] = mem;
      // d/d(log e) of e X + max(0, e - 1) H: the hidden part counts from a factor of 1 up (the
      // right-hand slope at the start, else a job whose communication is all hidden never moves e).
      jac[2] = f.communication * (p.parts.communication + (f.communication >= 1 ? p.parts.communication_hidden : 0)) / t;
      jac[3] = f.host * p.parts.host / t;
      for (std::size_t i = 0; i < par.classes.size(); ++i)
        if (par.classes[i] == p.parts.gemm_class) jac[4 + i] = gemm;
      const double w = 1 / noise_var[pi];
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
      next = objective(pts, noise_var, trial, par, pri.stack_dof);
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
  // The search starts at no correction and accepts only steps that lower the objective, so the
  // noise-weighted error on the points never ends above the uncalibrated one. (Residuals on the
  // points are the Calibrator's: each point judged by the fit made for its own configuration.)
  fit.log_compute = theta[0];
  fit.log_memory_bound = theta[1];
  fit.log_communication = theta[2];
  fit.log_host = theta[3];
  for (std::size_t i = 0; i < par.classes.size(); ++i) fit.log_gemm[par.classes[i]] = theta[4 + i];

  for (const auto& [name, factor] : fit.factors())
    if (std::fabs(std::log(factor)) > kImplausibleLogFactor)
      fit.warnings.push_back("calibration factor " + name + " = " + percent_factor(factor) +
                             " is outside 0.25x..4x: predictions far from the calibration points may not hold");
  return fit;
}

double CalibrationFit::seconds(const StepParts& s) const {
  const auto it = log_gemm.find(s.gemm_class);
  const double g = it == log_gemm.end() ? 0 : it->second;
  return std::exp(log_compute + g) * s.gemm + std::exp(log_compute + log_memory_bound) * s.memory_bound +
         s.communication_seconds(std::exp(log_communication)) + std::exp(log_host) * s.host;
}

std::vector<std::pair<std::string, double>> CalibrationFit::factors() const {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [cls, g] : log_gemm) out.emplace_back("gemm_" + cls, std::exp(log_compute + g));
  out.emplace_back("gemm_other_math", std::exp(log_compute));
  out.emplace_back("memory_bound_kernels", std::exp(log_compute + log_memory_bound));
  out.emplace_back("communication", std::exp(log_communication));
  out.emplace_back("host_overhead", std::exp(log_host));
  return out;
}

std::string CalibrationFit::method() const { return "log_map_step_parts"; }

void CalibrationFit::apply(Prediction& p) const {
  if (!p.valid || !(p.iteration_s > 0)) return;
  const StepParts s = step_parts(p);
  const double before = p.iteration_s, after = seconds(s);
  const auto it = log_gemm.find(s.gemm_class);
  const double fg = std::exp(log_compute + (it == log_gemm.end() ? 0 : it->second));
  const double fm = std::exp(log_compute + log_memory_bound), fe = std::exp(log_communication), fh = std::exp(log_host);
  const double kernel_gemm = p.gemm_math_share, kernel_factor = fg * kernel_gemm + fm * (1 - kernel_gemm);
  auto& b = p.breakdown;
  for (double* part : {&b.forward, &b.backward, &b.recompute, &b.pp_bubble}) *part *= kernel_factor;
  for (double* part : {&b.optimizer, &b.loss_scaling, &b.precision_casts}) *part *= fm;
  // Exposed communication grows by the factor and, beyond 1x, by the overlap it used up.
  const double exposed_before = s.communication, exposed_after = s.communication_seconds(fe);
  b.communication *= fe;
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
  for (auto& bucket : p.buckets) bucket.ready_s *= kernel_factor, bucket.duration_s *= fe;
  const double r = after / before;
  p.iteration_s = after;
  p.iteration_low_s *= r;
  p.iteration_high_s *= r;
  p.samples_per_second /= r;
  p.tokens_per_second /= r;
  p.tokens_per_second_per_gpu /= r;
  p.mfu /= r;
  p.mfu_precision_peak /= r;
  p.total_seconds *= r;
  p.gpu_hours *= r;
  p.cost_usd *= r;
  auto& c = p.calibration;
  c.applied = true;
  c.points = points;
  c.method = method();
  c.factors = factors();
  c.fit_residual = fit_residual;
  c.uncalibrated_residual = uncalibrated_residual;
  c.fit_step_error = fit_step_error;
  c.uncalibrated_step_error = uncalibrated_step_error;
  c.uncalibrated_iteration_s = before;
  for (const auto& w : warnings) p.warnings.push_back(w);
}

Calibrator::Calibrator(std::vector<CalibrationPoint> points, CalibrationPriors priors)
    : points_(std::move(points)), priors_(priors) {
  if (points_.empty()) throw InputError("calibration: no measured steps");
  double fitted = 0, raw = 0, fitted_step = 0, raw_step = 0;
  for (const auto& p : points_) {
    const double ratio = p.measured_s / p.parts.total();
    if (std::fabs(std::log(ratio)) > kImplausibleLogFactor)
      warnings_.push_back(p.where + ": measured step is " + percent_factor(ratio) +
                          " the prediction, more than calibration is meant to explain (is the job file the job that was measured?)");
    const double calibrated = fit_calibration(points_, p.key, priors_).seconds(p.parts);
    fitted += std::pow(std::log(calibrated / p.measured_s), 2);
    raw += std::pow(std::log(ratio), 2);
    fitted_step += std::pow(calibrated / p.measured_s - 1, 2);
    raw_step += std::pow(1 / ratio - 1, 2);
  }
  const auto n = static_cast<double>(points_.size());
  fit_residual_ = std::sqrt(fitted / n);
  uncalibrated_residual_ = std::sqrt(raw / n);
  fit_step_error_ = std::sqrt(fitted_step / n);
  uncalibrated_step_error_ = std::sqrt(raw_step / n);
}

CalibrationFit Calibrator::fit_for(const TransferKey& job) const {
  CalibrationFit fit = fit_calibration(points_, job, priors_);
  fit.fit_residual = fit_residual_;
  fit.uncalibrated_residual = uncalibrated_residual_;
  fit.fit_step_error = fit_step_error_;
  fit.uncalibrated_step_error = uncalibrated_step_error_;
  fit.warnings.insert(fit.warnings.begin(), warnings_.begin(), warnings_.end());
  return fit;
}

void Calibrator::apply(Prediction& p) const {
  if (!p.valid || !(p.iteration_s > 0)) return;
  fit_for(transfer_key(p)).apply(p);
  update_energy(p);  // the corrected parts change the phases' times
}

}  // namespace ptp
