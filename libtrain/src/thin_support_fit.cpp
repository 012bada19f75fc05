#include "ptp/train/thin_support_fit.hpp"

#include <cmath>
#include <map>
#include <set>

#include "ptp/train/evaluation.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

namespace {

// Held-out rows one share is judged on: one GPU's (or precision's) thin rows of one split.
struct Group {
  HeldOutCorrections* h;
  std::string label, architecture;
  std::vector<std::size_t> rows;
  std::vector<double> other;  // each row's factor from the other axis (the GPU's, for a precision)
};

struct GroupErrors {
  double learned = 0, analytical = 0;  // MAPE %
};

// A group's MAPE under the factor `factor` on each of its rows' shares (the row's other factor kept).
GroupErrors group_errors(const Group& g, double factor, const ShrinkageFitRows& fit, const ThinSupportRows& d,
                         const CorrectionShrinkage& shrinkage) {
  GroupErrors e;
  int n = 0;
  for (std::size_t k = 0; k < g.rows.size(); ++k) {
    const std::size_t i = g.rows[k];
    g.h->support[i].thin_support_factor = factor * g.other[k];
    const double c = held_out_log_correction(*g.h, i, shrinkage, d.kinds[i]);
    if (!std::isfinite(c)) continue;
    e.learned += 100 * std::fabs(fit.composed[i] * std::exp(c) - fit.measured[i]) / fit.measured[i];
    e.analytical += 100 * std::fabs(fit.analytical[i] - fit.measured[i]) / fit.measured[i];
    ++n;
  }
  if (n) e.learned /= n, e.analytical /= n;
  return e;
}

// The grid share with the lowest mean over `groups` of MAPE plus its excess over the analytical answer.
double fit_share(const std::vector<const Group*>& groups, const ShrinkageFitRows& fit, const ThinSupportRows& d,
                 const CorrectionShrinkage& shrinkage) {
  double best = 1, best_score = 1e300;
  if (groups.empty()) return best;
  // From share 1 down, so that a tie keeps the whole correction.
  for (int step = 20; step >= 0; --step) {
    const double m = step / 20.0;
    double score = 0;
    for (const auto* g : groups) {
      const GroupErrors e = group_errors(*g, m, fit, d, shrinkage);
      score += e.learned + std::max(0.0, e.learned - e.analytical);
    }
    if (score < best_score - 1e-9) best_score = score, best = m;
  }
  return best;
}

template <class Keep>
std::vector<const Group*> select(const std::vector<Group>& groups, Keep keep) {
  std::vector<const Group*> out;
  for (const auto& g : groups)
    if (keep(g)) out.push_back(&g);
  return out;
}

// The rows of `h` whose fold has thin support on one axis (`fold_runs`), grouped by `labels`.
void add_thin_groups(HeldOutCorrections& h, const std::vector<std::string>& labels, const std::vector<int>& fold_runs,
                     const ThinSupportRows& d, const std::vector<double>& other, std::vector<Group>& out) {
  std::map<std::string, Group> by_label;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (!std::isfinite(h.typical[i]) || fold_runs[i] < 0 || fold_runs[i] >= kThinSupportRuns) continue;
    Group& g = by_label[labels[i]];
    g.h = &h, g.label = labels[i], g.architecture = d.architectures[i];
    g.rows.push_back(i);
    g.other.push_back(other.empty() ? 1.0 : other[i]);
  }
  for (auto& [label, g] : by_label) out.push_back(std::move(g));
}

double round2(double v) { return std::round(100 * v) / 100; }

nlohmann::json group_figures(const Group& g, double share, double nested_share, const ShrinkageFitRows& fit,
                             const ThinSupportRows& d, const CorrectionShrinkage& shrinkage) {
  const GroupErrors whole = group_errors(g, 1.0, fit, d, shrinkage);
  const GroupErrors thin = group_errors(g, share, fit, d, shrinkage);
  const GroupErrors nested = group_errors(g, nested_share, fit, d, shrinkage);
  return {{"rows", g.rows.size()},        {"analytical", round2(whole.analytical)}, {"whole_correction", round2(whole.learned)},
          {"share", share},               {"thin_share", round2(thin.learned)},     {"nested_share", nested_share},
          {"nested", round2(nested.learned)}};
}

}  // namespace

std::map<std::string, int> counts_of(const std::vector<std::string>& labels) {
  std::map<std::string, int> c;
  for (const auto& l : labels) ++c[l];
  return c;
}

std::map<std::string, int> best_gpu_runs_by_architecture(const std::vector<std::string>& gpus,
                                                         const std::vector<std::string>& architectures) {
  const std::map<std::string, int> runs = counts_of(gpus);
  std::map<std::string, int> best;
  for (std::size_t i = 0; i < gpus.size(); ++i) best[architectures[i]] = std::max(best[architectures[i]], runs.at(gpus[i]));
  return best;
}

ThinSupportShares fit_thin_support(const HeldOutCorrections& logo, const HeldOutCorrections& lopo,
                                   const HeldOutCorrections& loco, const ShrinkageFitRows& fit,
                                   const ThinSupportRows& d, const CorrectionShrinkage& shrinkage,
                                   nlohmann::json& figures) {
  ThinSupportShares out;
  out.fitted = true;
  const std::size_t n = d.gpus.size();

  // GPUs: the rows whose fold had no GPU of their architecture with enough runs, on leave-one-GPU-out
  // (another GPU of the same stacks) and leave-one-codebase-out (another stack's GPUs).
  HeldOutCorrections g_logo = logo, g_loco = loco;
  std::vector<Group> gpu_groups, logo_groups;
  add_thin_groups(g_logo, d.gpus, g_logo.architecture_gpu_runs, d, {}, logo_groups);
  gpu_groups = logo_groups;
  add_thin_groups(g_loco, d.gpus, g_loco.architecture_gpu_runs, d, {}, gpu_groups);
  // The architectures a bundle of all the rows calls thin, and which of them earn a share of their own.
  std::map<std::string, int> best_of_architecture = best_gpu_runs_by_architecture(d.gpus, d.architectures);
  out.gpu_pooled = fit_share(select(gpu_groups, [](const Group&) { return true; }), fit, d, shrinkage);
  std::map<std::string, std::set<std::string>> thin_gpus_of;  // thin architecture -> its GPUs held out alone
  std::map<std::string, std::size_t> thin_rows_of;
  for (const auto& g : logo_groups)
    if (best_of_architecture[g.architecture] < kThinSupportRuns)
      thin_gpus_of[g.architecture].insert(g.label), thin_rows_of[g.architecture] += g.rows.size();
  // Lambdas capture a named copy: C++17 cannot capture a structured binding (clang refuses it).
  for (const auto& entry : thin_gpus_of) {
    const std::string& arch = entry.first;
    if (entry.second.size() >= kMinArchitectureThinGpus && thin_rows_of[arch] >= kMinArchitectureThinRows)
      out.gpu_by_architecture[arch] =
          fit_share(select(gpu_groups, [&](const Group& g) { return g.architecture == arch; }), fit, d, shrinkage);
  }
  for (const auto& g : logo_groups) {
    if (best_of_architecture[g.architecture] >= kThinSupportRuns) continue;
    // Nested: the share this GPU would get were it not in the data.
    const bool own = out.gpu_by_architecture.count(g.architecture) > 0;
    const double nested = fit_share(select(gpu_groups, [&](const Group& o) {
                                      return o.label != g.label && (!own || o.architecture == g.architecture);
                                    }),
                                    fit, d, shrinkage);
    figures["gpu"][g.label] = group_figures(g, out.gpu_share(g.architecture), nested, fit, d, shrinkage);
    figures["gpu"][g.label]["architecture"] = g.architecture;
  }

  // Precisions: rows whose fold had few runs in their precision, on leave-one-precision-out and
  // leave-one-codebase-out, each row's GPU factor kept.
  HeldOutCorrections p_lopo = lopo, p_loco = loco;
  auto gpu_factors = [&](const HeldOutCorrections& h) {
    std::vector<double> f(n, 1.0);
    for (std::size_t i = 0; i < n; ++i)
      if (h.architecture_gpu_runs[i] >= 0 && h.architecture_gpu_runs[i] < kThinSupportRuns) f[i] = out.gpu_share(d.architectures[i]);
    return f;
  };
  std::vector<Group> precision_groups, lopo_groups;
  add_thin_groups(p_lopo, d.precisions, p_lopo.precision_runs, d, gpu_factors(p_lopo), lopo_groups);
  precision_groups = lopo_groups;
  add_thin_groups(p_loco, d.precisions, p_loco.precision_runs, d, gpu_factors(p_loco), precision_groups);
  out.precision_pooled = fit_share(select(precision_groups, [](const Group&) { return true; }), fit, d, shrinkage);
  const std::map<std::string, int> precision_counts = counts_of(d.precisions);
  for (const auto& entry : precision_counts) {
    const std::string& name = entry.first;
    if (entry.second < kThinSupportRuns)
      out.by_precision[name] =
          fit_share(select(precision_groups, [&](const Group& g) { return g.label == name; }), fit, d, shrinkage);
  }
  for (const auto& g : lopo_groups) {
    const bool thin = precision_counts.at(g.label) < kThinSupportRuns;
    const double nested =
        fit_share(select(precision_groups, [&](const Group& o) { return o.label != g.label; }), fit, d, shrinkage);
    figures["precision"][g.label] =
        group_figures(g, thin ? out.precision_share(g.label) : 1.0, thin ? nested : 1.0, fit, d, shrinkage);
    figures["precision"][g.label]["thin"] = thin;
  }
  figures["shares"] = out.to_json();
  return out;
}

void apply_thin_support(HeldOutCorrections& h, const ThinSupportShares& shares, const ThinSupportRows& d) {
  for (std::size_t i = 0; i < h.support.size(); ++i)
    if (h.architecture_gpu_runs[i] >= 0 && h.precision_runs[i] >= 0)
      h.support[i].thin_support_factor =
          shares.factor(d.architectures[i], h.architecture_gpu_runs[i], d.precisions[i], h.precision_runs[i]);
}

std::string thin_support_section(const nlohmann::json& metrics) {
  if (!metrics.contains("thin_support")) return std::string();
  const auto& t = metrics["thin_support"];
  std::string md =
      "\n## Thin support: GPU architectures and precisions with under " + std::to_string(kThinSupportRuns) +
      " training runs (MAPE %)\n\nThe GPUs of architectures none of whose GPUs has as many runs, and every precision. Each GPU's runs predicted with no run of that GPU in training (leave-one-GPU-out), each "
      "precision's with none of that precision (leave-one-precision-out). The shares are fitted on these rows and on "
      "leave-one-codebase-out's rows whose fold had thin support (another stack's runs). A job on a thin GPU or in a thin precision keeps "
      "the share of the correction fitted on these rows (per architecture with two or more thin GPUs and 100 rows, else pooled; per "
      "thin precision; the precisions' rows keep their GPU's share); the nested column fits that share without the GPU or precision it judges.\n\n"
      "| GPU | architecture | rows | analytical | whole correction | share | with the share | nested share | nested |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  if (t.contains("gpu"))
    for (const auto& [name, v] : t["gpu"].items())
      md += "| " + name + " | " + v["architecture"].get<std::string>() + " | " + v["rows"].dump() + " | " +
            v["analytical"].dump() + " | " + v["whole_correction"].dump() + " | " + v["share"].dump() + " | " +
            v["thin_share"].dump() + " | " + v["nested_share"].dump() + " | " + v["nested"].dump() + " |\n";
  md += "\n| precision | thin | rows | analytical | whole correction | share | with the share | nested share | nested |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
  if (t.contains("precision"))
    for (const auto& [name, v] : t["precision"].items())
      md += "| " + name + " | " + (v["thin"].get<bool>() ? "yes" : "no") + " | " + v["rows"].dump() + " | " +
            v["analytical"].dump() + " | " + v["whole_correction"].dump() + " | " + v["share"].dump() + " | " +
            v["thin_share"].dump() + " | " + v["nested_share"].dump() + " | " + v["nested"].dump() + " |\n";
  md += "\nShares: " + t["shares"].dump() + "\n";
  return md;
}

}  // namespace ptp::train
