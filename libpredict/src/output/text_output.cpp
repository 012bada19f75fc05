#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "ptp/predict/calibration.hpp"
#include "ptp/predict/energy_output.hpp"
#include "ptp/predict/output.hpp"
#include "ptp/vocab/csv.hpp"
#include "text_cells.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
using text_cells::fmt;
using text_cells::lpad;
using text_cells::pad;
std::string ms(double s) { return fmt("%.2f ms", s * 1e3); }
}  // namespace

std::string human_duration(double seconds) {
  if (seconds < 120) return fmt("%.1f s", seconds);
  if (seconds < 7200) return fmt("%.1f min", seconds / 60);
  if (seconds < 172800) return fmt("%.1f h", seconds / 3600);
  return fmt("%.1f days", seconds / 86400);
}

namespace {
std::string layout_text(const LayoutSummary& l) {
  std::string o = "TP " + std::to_string(l.tensor) + (l.sequence_parallel ? "+SP" : "") + ", PP " +
                  std::to_string(l.pipeline);
  if (l.virtual_pipeline > 1) o += "x" + std::to_string(l.virtual_pipeline);
  if (l.context > 1) o += ", CP " + std::to_string(l.context);
  if (l.expert > 1) o += ", EP " + std::to_string(l.expert);
  o += ", DP " + std::to_string(l.data);
  if (l.sharding != Sharding::none) o += std::string(" (") + sharding_name(l.sharding) + ")";
  if (l.activation_checkpointing != Recompute::none)
    o += std::string(", recompute ") + recompute_name(l.activation_checkpointing);
  return o;
}

// Rank of each row by throughput among the rows of the same model that are valid and fit in memory
// (1 = fastest); 0 for the others. Sweeps over layouts are read by this column. Samples of different
// models are different amounts of work, so rows of several jobs are ranked per model.
std::vector<int> throughput_ranks(const std::vector<SweepRow>& rows) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].prediction.valid && rows[i].prediction.memory.fits) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return rows[a].prediction.samples_per_second > rows[b].prediction.samples_per_second;
  });
  std::vector<int> rank(rows.size(), 0);
  std::map<std::string, int> ranked;  // per model: rows ranked so far
  for (const std::size_t i : order) rank[i] = ++ranked[rows[i].prediction.model];
  return rank;
}

std::string calibration_line(const CalibrationSummary& c) {
  std::string factors;
  for (const auto& [name, f] : c.factors) factors += (factors.empty() ? "" : ", ") + name + " " + fmt("%.2fx", f);
  const std::string identified = c.configurations == 1 ? "one configuration: one factor on every part, "
                                                         : std::to_string(c.configurations) + " configurations, ";
  return "calibrated " + std::to_string(c.points) + " measured step" + (c.points == 1 ? "" : "s") + " (" + identified +
         calibration_method_label(c.method) + "): " + factors + "; step error on them " +
         fmt("%.1f%%", 100 * c.fit_step_error) + " (uncalibrated " + fmt("%.1f%%", 100 * c.uncalibrated_step_error) +
         ", RMS of predicted / measured - 1)";
}

// The one line of a calibrated sweep or search table: what was fitted and how well; the factors that
// act on each row (its own GEMM math's) are in its kCalibrationColumn cell.
std::string calibration_rows_line(const CalibrationSummary& c) {
  return "calibrated " + std::to_string(c.points) + " measured step" + (c.points == 1 ? "" : "s") + " (" +
         calibration_method_label(c.method) + "), one fit for every row: the factors acting on each in the column '" +
         kCalibrationColumn + "'; step error on them " + fmt("%.1f%%", 100 * c.fit_step_error) + " (uncalibrated " +
         fmt("%.1f%%", 100 * c.uncalibrated_step_error) + ")";
}

// Speed-ups are against the first row that could be predicted.
double first_valid_rate(const std::vector<SweepRow>& rows) {
  for (const auto& r : rows)
    if (r.prediction.valid) return r.prediction.samples_per_second;
  return 0;
}
}  // namespace

std::string calibration_factors_cell(const CalibrationSummary& c) {
  std::string out;
  for (const auto& [name, f] : c.factors) out += (out.empty() ? "" : ";") + name + "=" + fmt("%.6g", f);
  return out;
}

std::string calibration_factors_compact(const Prediction& p) {
  const auto& c = p.calibration;
  if (!c.applied) return "-";
  auto factor = [&](const std::string& name, double fallback) {
    for (const auto& [n, f] : c.factors)
      if (n == name) return f;
    return fallback;
  };
  // The GEMM factor of the row's own math: its class's when the points ran it, else the stack's.
  const double shared = factor("gemm", 1);
  const double gemm = factor("gemm_" + gemm_math_class(p.precision), shared);
  return fmt("%.2f", gemm) + "/" + fmt("%.2f", factor("memory_bound_kernels", 1)) + "/" +
         fmt("%.2f", factor("communication", 1)) + "/" + fmt("%.2f", factor("host_overhead", 1));
}

std::string price_text(const Prediction& p) {
  if (!p.price.known())  // label "none (the job's price is for <gpu>)" when the job priced another GPU
    return "no price: the catalog has none for " + p.gpu + "; " +
           (p.price.label == "none" ? std::string("set cost.usd_per_gpu_hour in the job")
                                    : p.price.label.substr(6, p.price.label.size() - 7) +
                                          "; --set cost.usd_per_gpu_hour prices any GPU");
  return "$" + fmt("%.2f", p.usd_per_hour) + "/hour ($" + fmt("%.2f", p.price.usd_per_gpu_hour) + " per GPU-hour x " +
         std::to_string(p.num_gpus) + ", " + p.price.label + ")";
}

std::string price_footer(const std::vector<const Prediction*>& rows) {
  // Prices the job file gave need no footnote: the user wrote them.
  if (std::all_of(rows.begin(), rows.end(), [](const Prediction* p) { return !p->valid || p->price.source == "job"; }))
    return "";
  std::vector<std::string> seen, lines;
  for (const Prediction* p : rows) {
    if (!p->valid) continue;
    const std::string line = p->gpu + ": " + (p->price.known() ? "$" + fmt("%.2f", p->price.usd_per_gpu_hour) +
                                                                    " per GPU-hour, " + p->price.label
                                                              : std::string("no price"));
    if (std::find(seen.begin(), seen.end(), line) != seen.end()) continue;
    seen.push_back(line);
    lines.push_back("price      " + line + "\n");
  }
  std::string out;
  for (const auto& l : lines) out += l;
  return out;
}

std::string calibration_method_label(const std::string& method) {
  // JSON and CSV keep the identifier, which scripts may match on.
  if (method == "log_map_stack_factors") return "the stack's factors on the step's parts";
  return method;
}

std::string render_table(const Prediction& p) {
  const auto& b = p.breakdown;
  std::string o;
  if (!p.valid) return "model      " + p.model + " on " + std::to_string(p.num_gpus) + " x " + p.gpu + "\nerror      " + p.error + "\n";
  o += "model      " + p.model + "  (" + p.framework +
       (p.attention_kernel.empty() ? std::string() : ", " + p.attention_kernel + " attention") + ", batch " + fmt("%g", p.batch_size) + " per GPU" +
       (p.seq_len > 0 ? ", seq_len " + std::to_string(p.seq_len) : "") +
       (p.grad_accum > 1 ? ", grad_accum " + std::to_string(p.grad_accum) : "") + ")\n";
  o += "precision  " + p.precision + (p.fp8_recipe.empty() ? std::string() : ", " + p.fp8_recipe + " scaling") + "\n";
  o += "cluster    " + std::to_string(p.num_gpus) + " x " + p.gpu + " (" + std::to_string(p.nodes) + " node" +
       (p.nodes > 1 ? "s" : "") + " x " + std::to_string(p.gpus_per_node) + ")\n";
  const auto& ly = p.layout;
  if (ly.tensor * ly.pipeline * ly.context * ly.expert > 1 || ly.sharding != Sharding::none ||
      ly.activation_checkpointing != Recompute::none)
    o += "layout     " + layout_text(ly) + ", " + std::to_string(ly.microbatches) + " micro-batches per step\n";
  if (!p.stack.empty()) {
    // Stated by the job, then filled from the codebase's recipes, then the predictor's assumption.
    std::string stated, recipes, assumed, codebase;
    for (const auto& s : p.stack) {
      const std::string name = s.field.rfind("overlap.", 0) == 0 ? s.field.substr(8) : s.field;
      std::string& list = s.stated ? stated : !s.codebase.empty() ? recipes : assumed;
      if (!s.codebase.empty()) codebase = s.codebase;
      list += (list.empty() ? "" : ", ") + name + " " + s.effect;
    }
    std::string line;
    auto part = [&](const std::string& label, const std::string& list) {
      if (!list.empty()) line += (line.empty() ? "" : "; ") + label + ": " + list;
    };
    part("stated", stated);
    part(codebase + " recipes", recipes);
    part("assumed", assumed);
    o += "stack      " + line + "\n";
  }
  o += "predictor  " + p.predictor_kind +
       (p.bundle.empty() ? "" : " (" + p.bundle + (p.bundle_checksum.empty() ? "" : ", " + p.bundle_checksum.substr(0, 12)) + ")") +
       fmt(": compute %.0f%% learned", 100 * p.compute_learned_share) + ", communication " + p.communication_predictor +
       (p.communication_predictor == "learned" && p.communication_learned_weight < 0.995
            ? fmt(" (%.0f%% of its correction: beyond its all-reduce data)", 100 * p.communication_learned_weight)
            : std::string()) +
       (p.predictor_kind == "learned" ? ", aggregator " + std::to_string(std::lround(100 * p.aggregator_share)) + "%" : std::string()) +
       (p.support.assessed ? " (" + std::to_string(p.support.runs_near) + " training runs near" +
                                 (p.support.codebase_known ? ", codebase " + p.support.codebase : std::string()) +
                                 (p.support.novelty.empty() ? std::string() : ", new " + p.support.novelty) + ")"
                           : std::string()) +
       "\n\n";
  if (p.calibration.applied) o += calibration_line(p.calibration) + "\n";
  o += "iteration  " + ms(p.iteration_s) + "   80% band " + ms(p.iteration_low_s) + " .. " + ms(p.iteration_high_s) +
       "\n";
  auto line = [&](const char* name, double v) {
    o += "  " + pad(name, 24) + lpad(ms(v), 12) + lpad(fmt("%.1f%%", 100 * v / p.iteration_s), 8) + "\n";
  };
  line("forward", b.forward);
  line("backward", b.backward);
  line("optimizer", b.optimizer);
  line("loss scaling", b.loss_scaling);
  if (b.recompute > 0) line("recompute", b.recompute);
  if (b.pp_bubble > 0) line("pipeline bubble", b.pp_bubble);
  line("communication exposed", b.communication_exposed);
  auto part = [&](const char* name, double v) {
    if (v > 0) o += "    " + pad(name, 22) + lpad(ms(v), 12) + lpad(fmt("%.1f%%", 100 * v / p.iteration_s), 8) + "\n";
  };
  part("tensor parallel", b.tp_communication);
  part("context parallel", b.cp_communication);
  part("expert all-to-all", b.ep_communication);
  part("pipeline sends", b.pp_communication);
  part("data parallel", b.dp_communication);
  o += "  " + pad("(communication total)", 24) + lpad(ms(b.communication), 12) + "\n";
  if (b.precision_casts > 0) o += "  " + pad("(precision casts, in fwd)", 24) + lpad(ms(b.precision_casts), 12) + "\n";
  o += "\nthroughput " + fmt("%.1f", p.samples_per_second) + " samples/s";
  if (p.tokens_per_second > 0)
    o += ", " + fmt("%.0f", p.tokens_per_second) + " tokens/s (" + fmt("%.0f", p.tokens_per_second_per_gpu) + " per GPU)";
  o += "\n";
  if (p.mfu > 0) {
    // The job's own math first (an FP16 job reads its FP16 peak), then the common BF16 scale.
    o += "MFU        " + fmt("%.1f%%", 100 * p.mfu_precision_peak) + " of " + p.mfu_precision_peak_basis;
    if (p.mfu_precision_peak_basis != p.mfu_peak_basis)
      o += "; " + fmt("%.1f%%", 100 * p.mfu) + " of " + p.mfu_peak_basis;
    o += "\n";
    // Papers quote MFU both ways; say which this is where it is printed.
    if (p.model_flops_attention_share > 0)
      o += "           model FLOPs count attention (" + fmt("%.0f%%", 100 * p.model_flops_attention_share) +
           " of them); on the 6·N basis (6 x active params x tokens) " +
           fmt("%.1f%%", 100 * p.mfu_precision_peak * (1 - p.model_flops_attention_share)) + " of the " +
           p.mfu_precision_peak_basis.substr(0, p.mfu_precision_peak_basis.find(' ')) + " peak\n";
  }
  o += "memory     " + fmt("%.1f", p.memory.per_gpu_bytes / kBytesPerGiB) + " GiB of " +
       fmt("%.0f", p.memory.capacity_bytes / kBytesPerGiB) + " GiB per GPU" +
       (p.memory.fits ? (p.memory.near_capacity ? "  (near capacity)" : "") : "  (DOES NOT FIT)") + "\n";
  o += "           " + fmt("%.1f", p.memory.allocated_bytes / kBytesPerGiB) + " GiB allocated, " +
       fmt("%.1f", p.memory.reserved_bytes / kBytesPerGiB) + " reserved, " +
       fmt("%.1f", p.memory.runtime_bytes / kBytesPerGiB) + " CUDA context and NCCL; copies as " + p.memory.convention +
       "\n";
  o += energy_text(p);
  if (p.total_steps > 0) {
    o += "total      " + fmt("%.0f", p.total_steps) + " steps, " + human_duration(p.total_seconds) + ", " +
         fmt("%.1f", p.gpu_hours) + " GPU-hours";
    if (p.has_cost) o += ", $" + fmt("%.2f", p.cost_usd);
    o += "\n";
    if (p.evaluations > 0 || p.checkpoints > 0)
      o += "           of which " + std::to_string(p.evaluations) + (p.evaluations == 1 ? " evaluation " : " evaluations ") +
           human_duration(p.eval_seconds) + " and " + std::to_string(p.checkpoints) +
           (p.checkpoints == 1 ? " checkpoint " : " checkpoints ") + human_duration(p.checkpoint_seconds) +
           " (run.eval, run.checkpoint)\n";
  }
  o += "cost       " + price_text(p) + "\n";
  for (const auto& w : p.warnings) o += "warning: " + w + "\n";
  return o;
}

std::string render_csv(const std::vector<SweepRow>& rows) {
  std::vector<std::string> header;
  if (!rows.empty())
    for (const auto& kv : rows.front().settings) header.push_back("sweep." + kv.first);
  for (const char* h : {"model", "precision", "gpu", "num_gpus", "batch_size", "seq_len", "grad_accum",
                        "iteration.seconds", "iteration.low", "iteration.high", "breakdown.forward",
                        "breakdown.backward", "breakdown.optimizer", "breakdown.communication",
                        "breakdown.communication_exposed", "breakdown.loss_scaling", "throughput.samples_per_second",
                        "throughput.tokens_per_second", "total.steps", "total.seconds", "total.gpu_hours",
                        "total.cost_usd", "memory.per_gpu_bytes", "memory.capacity_bytes", "memory.fits",
                        "predictor.kind", "speedup_vs_first", "warnings", "valid", "error", "rank",
                        "breakdown.tp_communication", "breakdown.cp_communication", "breakdown.ep_communication",
                        "breakdown.pp_communication", "breakdown.dp_communication", "breakdown.pp_bubble",
                        "breakdown.recompute", "throughput.tokens_per_second_per_gpu", "mfu", "mfu_precision_peak",
                        "parallelism.tensor", "parallelism.pipeline", "parallelism.virtual_pipeline",
                        "parallelism.context", "parallelism.expert", "parallelism.data", "parallelism.sharding",
                        "predictor.compute_learned_share", "predictor.communication"})
    header.emplace_back(h);
  for (const auto& h : energy_csv_header()) header.push_back(h);
  for (const char* h : {"cost.usd_per_gpu_hour", "cost.usd_per_hour", "cost.source", "cost.label", "job", "set",
                        "total.high_seconds", "total.eval_seconds", "total.checkpoint_seconds"})
    header.emplace_back(h);
  const bool calibrated =
      std::any_of(rows.begin(), rows.end(), [](const SweepRow& r) { return r.prediction.calibration.applied; });
  if (calibrated)
    for (const char* h : {"calibration.points", "calibration.method", "calibration.factors", "calibration.fit_residual",
                          "calibration.uncalibrated_seconds"})
      header.emplace_back(h);
  std::string out = csv_line(header);
  const double first = first_valid_rate(rows);
  const auto ranks = throughput_ranks(rows);
  for (std::size_t ri = 0; ri < rows.size(); ++ri) {
    const auto& r = rows[ri];
    const auto& p = r.prediction;
    const auto& b = p.breakdown;
    const bool total = p.total_steps > 0;
    std::vector<std::string> cells;
    for (const auto& kv : r.settings) cells.push_back(kv.second);
    auto g = [](double v) { return fmt("%.6g", v); };
    std::string warnings;
    for (const auto& w : p.warnings) warnings += (warnings.empty() ? "" : " | ") + w;
    const std::vector<std::string> values{p.model, p.precision, p.gpu, std::to_string(p.num_gpus), g(p.batch_size),
          p.seq_len > 0 ? std::to_string(p.seq_len) : std::string(), std::to_string(p.grad_accum), g(p.iteration_s),
          g(p.iteration_low_s), g(p.iteration_high_s), g(b.forward), g(b.backward), g(b.optimizer), g(b.communication),
          g(b.communication_exposed), g(b.loss_scaling), g(p.samples_per_second),
          p.tokens_per_second > 0 ? g(p.tokens_per_second) : std::string(), total ? g(p.total_steps) : std::string(),
          total ? g(p.total_seconds) : std::string(), total ? g(p.gpu_hours) : std::string(),
          total && p.has_cost ? g(p.cost_usd) : std::string(), g(p.memory.per_gpu_bytes), g(p.memory.capacity_bytes),
          p.memory.fits ? "true" : "false", p.predictor_kind, g(first > 0 ? p.samples_per_second / first : 0),
          warnings, p.valid ? "true" : "false", p.error, ranks[ri] > 0 ? std::to_string(ranks[ri]) : std::string(),
          g(b.tp_communication), g(b.cp_communication), g(b.ep_communication), g(b.pp_communication),
          g(b.dp_communication), g(b.pp_bubble), g(b.recompute),
          p.tokens_per_second > 0 ? g(p.tokens_per_second_per_gpu) : std::string(), g(p.mfu), g(p.mfu_precision_peak),
          std::to_string(p.layout.tensor), std::to_string(p.layout.pipeline), std::to_string(p.layout.virtual_pipeline),
          std::to_string(p.layout.context), std::to_string(p.layout.expert), std::to_string(p.layout.data),
          sharding_name(p.layout.sharding), g(p.compute_learned_share), p.communication_predictor};
    cells.insert(cells.end(), values.begin(), values.end());
    for (auto& c : energy_csv_cells(p.energy)) cells.push_back(std::move(c));
    for (const auto& v : {p.has_cost ? g(p.price.usd_per_gpu_hour) : std::string(),
                          p.has_cost ? g(p.usd_per_hour) : std::string(), p.price.source, p.price.label})
      cells.push_back(v);
    std::string set;
    for (const auto& s : p.set_flags) set += (set.empty() ? "" : ";") + s;
    cells.push_back(p.job_file);
    cells.push_back(set);
    cells.push_back(total ? g(total_high_seconds(p)) : std::string());
    cells.push_back(g(p.eval_seconds));
    cells.push_back(g(p.checkpoint_seconds));
    if (calibrated) {
      const auto& c = p.calibration;
      for (const auto& v : {c.applied ? std::to_string(c.points) : std::string(), c.method, calibration_factors_cell(c),
                            c.applied ? g(c.fit_residual) : std::string(),
                            c.applied ? g(c.uncalibrated_iteration_s) : std::string()})
        cells.push_back(v);
    }
    out += csv_line(cells);
  }
  return out;
}

std::string render_sweep_table(const std::vector<SweepRow>& rows) {
  if (rows.empty()) return "";
  std::vector<std::string> head;
  for (const auto& kv : rows.front().settings) head.push_back(kv.first);
  const bool tokens = std::any_of(rows.begin(), rows.end(), [](const SweepRow& r) { return r.prediction.tokens_per_second > 0; });
  for (const char* h : {"iteration", "samples/s"}) head.emplace_back(h);
  if (tokens) head.emplace_back("tok/s/GPU");
  for (const char* h : {"MFU", "total", "cost", "memory", "speed-up", "rank"}) head.emplace_back(h);
  const bool calibrated =
      std::any_of(rows.begin(), rows.end(), [](const SweepRow& r) { return r.prediction.calibration.applied; });
  if (calibrated) head.emplace_back(kCalibrationColumn);
  std::vector<std::vector<std::string>> table{head};
  const double first = first_valid_rate(rows);
  const auto ranks = throughput_ranks(rows);
  for (std::size_t ri = 0; ri < rows.size(); ++ri) {
    const auto& r = rows[ri];
    const auto& p = r.prediction;
    std::vector<std::string> cells;
    for (const auto& kv : r.settings) cells.push_back(kv.second);
    if (!p.valid) {  // the layout cannot run: say why in place of the numbers
      cells.push_back("invalid: " + p.error);
      table.push_back(cells);
      continue;
    }
    cells.push_back(ms(p.iteration_s));
    cells.push_back(fmt("%.1f", p.samples_per_second));
    if (tokens) cells.push_back(fmt("%.0f", p.tokens_per_second_per_gpu));
    cells.push_back(p.mfu > 0 ? fmt("%.1f%%", 100 * p.mfu) : "-");
    cells.push_back(p.total_steps > 0 ? human_duration(p.total_seconds) : "-");
    cells.push_back(p.total_steps > 0 && p.has_cost ? "$" + fmt("%.2f", p.cost_usd) : "-");
    cells.push_back(fmt("%.1f GiB", p.memory.per_gpu_bytes / kBytesPerGiB) + (p.memory.fits ? "" : " (no fit)"));
    cells.push_back(fmt("%.2fx", first > 0 ? p.samples_per_second / first : 0));
    cells.push_back(ranks[ri] > 0 ? std::to_string(ranks[ri]) : "-");
    if (calibrated) cells.push_back(calibration_factors_compact(p));
    table.push_back(cells);
  }
  std::string footer;
  for (const auto& r : rows)
    if (r.prediction.calibration.applied) {
      footer = calibration_rows_line(r.prediction.calibration) + "\n";
      break;
    }
  std::vector<const Prediction*> priced;
  for (const auto& r : rows)
    if (r.prediction.total_steps > 0) priced.push_back(&r.prediction);
  footer += price_footer(priced);
  std::vector<std::size_t> width(head.size(), 0);
  for (const auto& row : table)
    for (std::size_t i = 0; i < row.size(); ++i)
      if (row.size() == head.size() || i < rows.front().settings.size()) width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (std::size_t r = 0; r < table.size(); ++r) {
    for (std::size_t i = 0; i < table[r].size(); ++i)
      out += (i ? "  " : "") + (i < rows.front().settings.size() ? pad(table[r][i], width[i]) : lpad(table[r][i], width[i]));
    out += "\n";
  }
  return out + footer;
}

}  // namespace ptp::predict
