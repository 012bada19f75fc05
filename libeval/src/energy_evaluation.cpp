// Like with like:
// * zeus (NSDI'23 trace), uncapped rows (power_limit_w = the GPU's maximum): ResNet-50 / ImageNet,
//   BERT-base / SQuAD (seq_len 384 assumed: the trace does not state it; 384 is the HF run_qa
//   default): average board power over the epoch against the predicted step average; NCF, which is
//   host-bound, also against the predicted waiting power (catalog idle_w); for
//   ResNet-50 also energy per step = measured power x batch / measured throughput (the only Zeus
//   workload with a train-set size, hence a step time).
// * zeus capped rows of the same configurations: time and energy relative to the uncapped row,
//   against the power-limit what-if.
// * flopmetrics (Llama-3.2-1B, batch 8, pure 16-bit or FP32 weights): energy of backward + optimizer
//   against the predicted energy of those phases, power over kernel time (an upper bound) against
//   the predicted power of the busy phases, and the summed kernel time against the predicted one.
// One thing is fitted here, the cap's clock model (energy.hpp CapClockModel: cap_clock_fit, with each
// GPU left out); the other constants are energy.hpp's and the catalog's, and the
// leave-one-source-out tables drop what Zeus contributes (the waiting power of the GPUs only Zeus
// measures) and recompute the compute-bound activity from Perseus alone.
#include "ptp/eval/energy_evaluation.hpp"

#include "energy_cap_fit.hpp"
#include "error_groups.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "ptp/predict/energy.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/predictor.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/yaml_reader.hpp"

#include "ptp/eval/vocabulary.hpp"

namespace ptp::eval {

using detail::abs_log_quantile80;
using detail::cap_clock_fit;
using detail::CapRow;
using detail::Err;
using detail::Groups;
using detail::summary_of;
using detail::table;

namespace {

double num(const std::string& s) { return s.empty() ? NAN : std::strtod(s.c_str(), nullptr); }


std::string job_yaml(const std::string& model, const std::string& precision, const std::string& gpu, long batch,
                     long seq_len, double cap, const std::string& memory_convention = "") {
  std::string y = "model: " + model + "\nprecision: " + precision + "\nbatch_size: " + std::to_string(batch) + "\n";
  if (seq_len > 0) y += "seq_len: " + std::to_string(seq_len) + "\n";
  if (!memory_convention.empty()) y += "memory:\n  convention: " + memory_convention + "\n";
  y += "cluster:\n  gpu: " + gpu + "\n  num_gpus: 1\n";
  if (cap > 0) y += "  power_limit_w: " + std::to_string(cap) + "\n";
  return y;
}

// Predicted board power over the busy (kernel) phases, and the energy of backward + optimizer.
double busy_power(const EnergyEstimate& e) {
  const double t = e.compute_s + e.memory_s;
  return t > 0 ? (e.compute_s * e.compute_w + e.memory_s * e.memory_w) / t : 0;
}
// The backward + optimizer window flopmetrics measures: its kernel time (the backward's host gaps are
// not kernel time) and its energy (those gaps at the waiting power).
struct BackwardOptimizer {
  double kernel_s = 0, joules = 0;
};
BackwardOptimizer backward_optimizer(const Prediction& p) {
  const auto& b = p.breakdown;
  const auto& e = p.energy;
  const double g = std::clamp(p.gemm_math_share, 0.0, 1.0);
  const double fb = b.forward + b.backward;
  const double host = fb > 0 ? std::max(0.0, b.framework_overhead) * b.backward / fb : 0;
  const double bwd = std::max(0.0, b.backward - host);
  return {bwd + b.optimizer,
          bwd * (g * e.compute_w + (1 - g) * e.memory_w) + b.optimizer * e.memory_w + host * e.wait_w};
}

// Waiting power without Zeus: a GPU's Perseus blocking row where it has one, else the idle share of
// TDP (the catalog's idle_w of the Zeus GPUs comes from Zeus NCF, so it is not used here).
struct IdleWithoutZeus {
  std::map<std::string, double> blocking_w;  // per GPU
  explicit IdleWithoutZeus(const CsvTable& t) {
    for (const auto& r : t.rows())
      if (t.text(r, "origin") == "perseus_blocking") blocking_w[t.text(r, "gpu")] = num(t.text(r, "avg_power_w_per_gpu"));
  }
  double operator()(const std::string& gpu, double tdp_w) const {
    const auto it = blocking_w.find(gpu);
    return it != blocking_w.end() ? it->second : power_model::kIdleShareOfTdp * tdp_w;
  }
};

std::string zeus_key(const CsvTable& t, const CsvRow& r) {
  return t.text(r, "gpu") + "|" + t.text(r, "model") + "|" + t.text(r, "batch_size") + "|" + t.text(r, "batch_note") +
         "|" + t.text(r, "dataset_or_task");
}

// Each Zeus configuration's (zeus_key) highest power limit: its uncapped row.
std::map<std::string, double> zeus_max_caps(const CsvTable& t) {
  std::map<std::string, double> max_cap;
  for (const auto& r : t.rows())
    if (t.text(r, "origin") == "zeus" && !t.text(r, "model").empty() && !t.text(r, "gpu").empty())
      max_cap[zeus_key(t, r)] = std::max(max_cap[zeus_key(t, r)], num(t.text(r, "power_limit_w")));
  return max_cap;
}

// The compute-bound activity as scripts/fit_power_constants.py fits it, on the Perseus BF16 stage
// profiles at their maximum SM clock alone (the fit without Zeus): the median over rows of
// (power - waiting power) / (TDP - waiting power).
double activity_without_zeus(const CsvTable& t, const IdleWithoutZeus& idle_without_zeus) {
  std::map<std::string, double> top_clock;
  for (const auto& r : t.rows())
    if (t.text(r, "origin") == "perseus_stage") {
      const std::string k = t.text(r, "gpu") + "|" + t.text(r, "model");
      top_clock[k] = std::max(top_clock[k], num(t.text(r, "sm_clock_mhz")));
    }
  std::vector<double> activity;
  for (const auto& r : t.rows())
    if (t.text(r, "origin") == "perseus_stage" &&
        num(t.text(r, "sm_clock_mhz")) == top_clock[t.text(r, "gpu") + "|" + t.text(r, "model")]) {
      const double tdp = num(t.text(r, "tdp_w")), idle = idle_without_zeus(t.text(r, "gpu"), tdp);
      activity.push_back((num(t.text(r, "avg_power_w_per_gpu")) - idle) / (tdp - idle));
    }
  if (activity.empty()) return NAN;
  std::sort(activity.begin(), activity.end());
  const std::size_t mid = activity.size() / 2;
  return activity.size() % 2 ? activity[mid] : 0.5 * (activity[mid - 1] + activity[mid]);
}

// A prediction's board energy per step with the compute-bound activity and the waiting power
// replaced (uncapped rows only: no cap moves a phase).
double board_j_with(const Prediction& p, double activity, double idle_w) {
  const auto& e = p.energy;
  const double compute_w = idle_w + activity * (e.tdp_w - idle_w);
  const double memory_w = idle_w + power_model::kMemoryActivity * (e.tdp_w - idle_w);
  return (e.compute_s * compute_w + e.memory_s * memory_w + (e.communication_s + e.bubble_s + e.other_s) * idle_w) *
         p.num_gpus;
}

// Share of the measured values inside the prediction's 80 % energy band.
struct Coverage {
  int inside = 0, rows = 0;
  void add(const EnergyEstimate& e, double predicted, double measured) {
    ++rows;
    inside += measured >= predicted * e.band_low_factor && measured <= predicted * e.band_high_factor;
  }
  double share() const { return rows ? static_cast<double>(inside) / rows : NAN; }
};

struct Tables {
  Groups zeus_power, ncf_power, ncf_waiting, zeus_energy, cap_time, cap_energy, fm_power, fm_energy, fm_time,
      fm_time_by_seq, loso_zeus_power, cap_time_gpu_bound, cap_energy_gpu_bound, cap_time_ncf, cap_energy_ncf,
      loso_ncf_waiting, loso_zeus_energy;
  Coverage zeus_energy_band, fm_energy_band;
  std::vector<CapRow> cap_rows;
  int skipped = 0;
};


// Zeus: the uncapped row of each configuration first (pass 0), then its capped rows against it.
void zeus_tables(const CsvTable& t, const Predictor& predictor, double held_out_activity,
                 const IdleWithoutZeus& idle_without_zeus, Tables& out) {
  auto spec = [](const std::string& yaml) { return parse_job_spec(YamlReader::load_string(yaml, "<row>")); };
  struct Base {
    double time = 0, energy = 0;  // measured
    Prediction prediction;
  };
  std::map<std::string, Base> base;
  auto max_cap = zeus_max_caps(t);
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& r : t.rows()) {
      auto c = [&](const char* col) { return t.text(r, col); };
      if (c("origin") != "zeus" || c("model").empty() || c("gpu").empty()) continue;
      const std::string model = c("model"), task = c("dataset_or_task");
      if (model == "bert-base" && task != "squad") continue;  // sentiment140's sequence length is not known
      const std::string key = zeus_key(t, r);
      const double cap = num(c("power_limit_w"));
      const bool uncapped = cap >= max_cap[key];
      if ((pass == 0) != uncapped) continue;
      const long batch = static_cast<long>(num(c("batch_size")));
      Prediction p;
      ResolvedJob resolved;
      try {
        resolved = resolve_job(
            spec(job_yaml(model, c("precision"), c("gpu"), batch, model == "bert-base" ? 384 : 0, uncapped ? 0 : cap)),
            predictor.catalogs());
        p = predictor.predict(resolved);
      } catch (const InputError&) {
        ++out.skipped;  // e.g. a cap below the catalog's minimum, or a batch that does not fit
        continue;
      }
      if (!p.energy.valid) continue;
      const std::string group = "zeus " + model + " / " + c("gpu");
      const double meas_w = num(c("avg_power_w_per_gpu"));
      if (uncapped) {
        const double loso_idle = idle_without_zeus(c("gpu"), p.energy.tdp_w);
        const double loso_j = board_j_with(p, held_out_activity, loso_idle);
        if (model == "ncf") {
          // Host-bound (see the table's note): the step model has no input-pipeline term, so its
          // step is GPU-busy where the measured epoch mostly waits; the waiting power is what to test.
          out.ncf_power[group].add(p.energy.avg_board_w, meas_w);
          out.ncf_waiting[group].add(p.energy.idle_w, meas_w);
          out.loso_ncf_waiting[group].add(loso_idle, meas_w);
        } else {
          out.zeus_power[group].add(p.energy.avg_board_w, meas_w);
          out.loso_zeus_power[group].add(loso_j / p.iteration_s / p.num_gpus, meas_w);
        }
        base[key] = {num(c("duration_s")), num(c("energy_j")), p};
        const double thr = num(c("throughput"));
        if (model == "resnet50" && thr > 0) {
          out.zeus_energy[group].add(p.energy.board_j_per_step, meas_w * static_cast<double>(batch) / thr);
          out.zeus_energy_band.add(p.energy, p.energy.board_j_per_step, meas_w * static_cast<double>(batch) / thr);
          out.loso_zeus_energy[group].add(loso_j, meas_w * static_cast<double>(batch) / thr);
        }
      } else if (base.count(key)) {
        const auto& b = base[key];
        const char* band = cap / p.energy.tdp_w >= 0.6 ? ">= 0.6 TDP" : "< 0.6 TDP";
        // NCF's step is host-bound (see its table), which the step model does not know: its capped rows
        // test the step model, not the cap, and are kept apart from the GPU-bound jobs'.
        const bool host_bound = model == "ncf";
        const std::string g2 = "zeus " + c("gpu") + (host_bound ? " NCF" : " ResNet-50/BERT") + ", cap " + band;
        const double t_pred = p.iteration_s / b.prediction.iteration_s, t_meas = num(c("duration_s")) / b.time;
        const double e_pred = p.energy.board_j_per_step / b.prediction.energy.board_j_per_step,
                     e_meas = num(c("energy_j")) / b.energy;
        out.cap_time[g2].add(t_pred, t_meas);
        out.cap_energy[g2].add(e_pred, e_meas);
        (host_bound ? out.cap_time_ncf : out.cap_time_gpu_bound)[band].add(t_pred, t_meas);
        (host_bound ? out.cap_energy_ncf : out.cap_energy_gpu_bound)[band].add(e_pred, e_meas);
        if (!host_bound) out.cap_rows.push_back({resolved, b.prediction, c("gpu"), t_meas, e_meas});
      }
    }
  }
}

// flopmetrics loads the model with torch_dtype and trains it without autocast: weights, gradients
// and AdamW's state all at that dtype, no master copy (the row's precision_as_published says "pure").
bool pure_weights(const std::string& precision_as_published) { return precision_as_published.rfind("pure", 0) == 0; }

void flopmetrics_tables(const CsvTable& t, const Predictor& predictor, Tables& out) {
  for (const auto& r : t.rows()) {
    auto c = [&](const char* col) { return t.text(r, col); };
    if (c("origin") != "flopmetrics" || c("gpu").empty()) continue;
    Prediction p;
    try {
      p = predictor.predict(parse_job_spec(YamlReader::load_string(
          job_yaml(c("model"), c("precision"), c("gpu"), static_cast<long>(num(c("batch_size"))),
                   static_cast<long>(num(c("seq_len"))), 0, pure_weights(c("precision_as_published")) ? "pure" : ""),
          "<row>")));
    } catch (const InputError&) {
      ++out.skipped;
      continue;
    }
    const std::string group = "flopmetrics " + c("gpu") + " " + c("precision");
    out.fm_power[group].add(busy_power(p.energy), num(c("avg_power_w_per_gpu")));
    const auto bo = backward_optimizer(p);
    out.fm_time[group].add(bo.kernel_s, num(c("duration_s")));
    char by_seq[64];  // padded so that 256 and 512 sort before 1024
    std::snprintf(by_seq, sizeof by_seq, "%s, seq %4ld", c("precision") == "fp32" ? "fp32" : "fp16 and bf16",
                  static_cast<long>(num(c("seq_len"))));
    out.fm_time_by_seq[by_seq].add(bo.kernel_s, num(c("duration_s")));
    out.fm_energy[group].add(bo.joules, num(c("energy_j")));
    out.fm_energy_band.add(p.energy, bo.joules, num(c("energy_j")));
  }
}

// The evidence that Zeus NCF is host-bound: per GPU, the batch range of its uncapped rows and the
// range of their measured power.
std::string ncf_flatness(const CsvTable& t) {
  struct Span {
    double batch_lo = INFINITY, batch_hi = 0, w_lo = INFINITY, w_hi = 0;
  };
  auto max_cap = zeus_max_caps(t);
  std::map<std::string, Span> span;
  for (const auto& r : t.rows()) {
    if (t.text(r, "origin") != "zeus" || t.text(r, "model") != "ncf" ||
        num(t.text(r, "power_limit_w")) < max_cap[zeus_key(t, r)])
      continue;
    auto& s = span[t.text(r, "gpu")];
    const double b = num(t.text(r, "batch_size")), w = num(t.text(r, "avg_power_w_per_gpu"));
    s.batch_lo = std::min(s.batch_lo, b), s.batch_hi = std::max(s.batch_hi, b);
    s.w_lo = std::min(s.w_lo, w), s.w_hi = std::max(s.w_hi, w);
  }
  std::string out;
  char line[160];
  for (const auto& [gpu, s] : span) {
    std::snprintf(line, sizeof line, "%s%s batch %.0f-%.0f: %.0f-%.0f W", out.empty() ? "" : "; ", gpu.c_str(),
                  s.batch_lo, s.batch_hi, s.w_lo, s.w_hi);
    out += line;
  }
  return out;
}

}  // namespace

EnergyEvaluation evaluate_energy(const EnergyEvaluationOptions& o) {
  const Predictor predictor(o.config_dir, o.bundle_dir, !o.bundle_dir.empty());
  const CsvTable t = CsvTable::read_file(o.power_csv);
  const IdleWithoutZeus idle_without_zeus(t);
  const double held_out_activity = activity_without_zeus(t, idle_without_zeus);
  Tables tables;
  zeus_tables(t, predictor, held_out_activity, idle_without_zeus, tables);
  flopmetrics_tables(t, predictor, tables);
  EnergyEvaluation out;
  std::string& md = out.markdown;
  md += table("## Zeus ResNet-50 and BERT-base, uncapped: average board power per GPU (predicted step average vs "
              "measured epoch average)",
              tables.zeus_power);
  md += "\n## Zeus NCF, uncapped: a host-bound job\n\nNCF's measured board power stays flat while its batch grows "
        "over three orders of magnitude (" + ncf_flatness(t) +
        "): the GPU mostly waits on the host (Python data loading and launches), and ptp's step model has no "
        "input-pipeline term, so it predicts a GPU-busy step. The first table is that full prediction; the second "
        "tests what the GPU draws while it waits (the waiting power, catalog idle_w). The idle_w of the V100, P100 "
        "and RTX 6000 is the lowest of these rows (so the second table is in sample for them; the A40's comes from "
        "Perseus); leaving Zeus out, they fall back to 0.26 x TDP.\n";
  md += table("### NCF: predicted step average vs measured", tables.ncf_power);
  md += table("### NCF: waiting power (catalog idle_w) vs measured", tables.ncf_waiting);
  md += table("## Zeus ResNet-50, uncapped: energy per step (measured power x batch / measured throughput)",
              tables.zeus_energy);
  md += table("## Zeus, capped: step time relative to the uncapped row (power-limit what-if)", tables.cap_time);
  md += table("## Zeus, capped: energy per step relative to the uncapped row (power-limit what-if)", tables.cap_energy);
  md += table("### Capped, GPU-bound jobs (ResNet-50, BERT-base): step time by cap", tables.cap_time_gpu_bound);
  md += table("### Capped, GPU-bound jobs (ResNet-50, BERT-base): energy per step by cap", tables.cap_energy_gpu_bound);
  md += table("### Capped, NCF (host-bound; the step model predicts it GPU-busy): step time by cap", tables.cap_time_ncf);
  md += table("### Capped, NCF (host-bound; the step model predicts it GPU-busy): energy per step by cap",
              tables.cap_energy_ncf);
  nlohmann::json cap_fit;
  md += cap_clock_fit(tables.cap_rows, cap_fit);
  md += table("## flopmetrics Llama-3.2-1B: energy of backward + optimizer", tables.fm_energy);
  md += table("## flopmetrics Llama-3.2-1B: power over kernel time (measured is an upper bound) vs predicted busy power",
              tables.fm_power);
  md += table("## flopmetrics Llama-3.2-1B: backward + optimizer time (predicted kernel time vs summed measured kernel time)",
              tables.fm_time);
  md += table("### The same by sequence length (batch 8 throughout)", tables.fm_time_by_seq);
  char text[1024];
  std::snprintf(text, sizeof text,
                "\n## Leave one source out\n\nEach source's rows predicted with the constants fitted without it. "
                "Zeus: the compute-bound activity is the Perseus stage profiles' alone (recomputed here: %.3f; "
                "shipped: %.3f), and the waiting power of the GPUs Perseus does not measure falls back to 0.26 x TDP "
                "(their catalog idle_w comes from Zeus NCF); the cap constants have no other source (their "
                "leave-one-GPU-out: the clock model's table above, the settle's in scripts/fit_power_constants.py). flopmetrics: no constant was fitted on it, "
                "so its tables above are already held out. Perseus: no row is a zoo model, so none is predicted.\n",
                held_out_activity, power_model::kComputeActivity);
  md += text;
  md += table("## Leave Zeus out: ResNet-50 and BERT-base average board power per GPU, uncapped",
              tables.loso_zeus_power);
  md += table("## Leave Zeus out: NCF waiting power vs measured", tables.loso_ncf_waiting);
  md += table("## Leave Zeus out: ResNet-50 energy per step, uncapped", tables.loso_zeus_energy);
  const double band = abs_log_quantile80({&tables.fm_power, &tables.loso_zeus_power});
  std::snprintf(text, sizeof text,
                "\n## The 80 %% energy band\n\nEvery energy figure carries an 80 %% band: the step's 80 %% time band "
                "and the power model's combined in log space. The power model's half-width is the 80th percentile of "
                "|log(predicted / measured)| average power on the rows no fit saw (flopmetrics busy power, and Zeus' "
                "GPU-bound rows leaving Zeus out): %.3f here, shipped %.3f (energy.hpp kPowerBand80Log). Measured "
                "energy inside the predicted band: Zeus ResNet-50 energy per step %d of %d, flopmetrics backward + "
                "optimizer %d of %d.\n",
                band, power_model::kPowerBand80Log, tables.zeus_energy_band.inside, tables.zeus_energy_band.rows,
                tables.fm_energy_band.inside, tables.fm_energy_band.rows);
  md += text;
  md += "\nrows skipped (a job spec the predictor refuses, e.g. a cap below the catalog minimum): " +
        std::to_string(tables.skipped) + "\n";
  out.summary = {{"zeus_power", summary_of(tables.zeus_power)},
                 {"power_band_80_log", band},
                 {"energy_band_coverage",
                  {{"zeus_resnet50_energy_per_step", tables.zeus_energy_band.share()},
                   {"flopmetrics_energy", tables.fm_energy_band.share()}}},
                 {"zeus_ncf_power", summary_of(tables.ncf_power)},
                 {"zeus_ncf_waiting_power", summary_of(tables.ncf_waiting)},
                 {"zeus_resnet50_energy_per_step", summary_of(tables.zeus_energy)},
                 {"zeus_cap_time", summary_of(tables.cap_time)},
                 {"zeus_cap_energy", summary_of(tables.cap_energy)},
                 {"zeus_cap_time_gpu_bound", summary_of(tables.cap_time_gpu_bound)},
                 {"zeus_cap_energy_gpu_bound", summary_of(tables.cap_energy_gpu_bound)},
                 {"zeus_cap_time_ncf", summary_of(tables.cap_time_ncf)},
                 {"zeus_cap_energy_ncf", summary_of(tables.cap_energy_ncf)},
                 {"cap_clock_model", cap_fit},
                 {"flopmetrics_energy", summary_of(tables.fm_energy)},
                 {"flopmetrics_busy_power", summary_of(tables.fm_power)},
                 {"flopmetrics_kernel_time", summary_of(tables.fm_time)},
                 {"leave_one_source_out",
                  {{"zeus_activity_without_zeus", held_out_activity},
                   {"zeus_power", summary_of(tables.loso_zeus_power)},
                   {"zeus_ncf_waiting_power", summary_of(tables.loso_ncf_waiting)},
                   {"zeus_resnet50_energy_per_step", summary_of(tables.loso_zeus_energy)},
                   {"flopmetrics", "entered no fit: the flopmetrics figures are held out"}}}};
  return out;
}

}  // namespace ptp::eval
