// The predicted step as Chrome trace events: compute stream (forward per layer, backward in reverse),
// a data-parallel stream with the all-reduce buckets of the last micro-batch, then the optimizer; each
// model-parallel kind (TP, CP, EP, pipeline sends) on its own track, its exposed time per micro-batch
// spread over that micro-batch's forward and backward.
#include "ptp/predict/energy_output.hpp"
#include "ptp/predict/output.hpp"

#include <algorithm>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
constexpr int kTracedMicrobatches = 64;
}  // namespace

int chrome_trace_microbatches(const Prediction& p) { return std::min(std::max(1, p.grad_accum), kTracedMicrobatches); }

double chrome_trace_layer_events(const Prediction& p) {
  return 2.0 * static_cast<double>(p.layers.size()) * chrome_trace_microbatches(p);
}

std::string render_chrome_trace(const Prediction& p) {
  using nlohmann::json;
  json events = json::array();
  auto ev = [&](const std::string& name, const char* cat, int tid, double start_s, double dur_s) {
    events.push_back({{"name", name}, {"cat", cat}, {"ph", "X"}, {"pid", 1}, {"tid", tid},
                      {"ts", start_s * 1e6}, {"dur", std::max(dur_s, 0.0) * 1e6}});
  };
  events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 1}, {"args", {{"name", "compute"}}}});
  events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 2}, {"args", {{"name", "data parallel"}}}});
  const auto& b = p.breakdown;
  struct Track {
    int tid;
    const char* name;
    double exposed;  // per step
  };
  const Track model_parallel[] = {{3, "tensor parallel", b.tp_communication},
                                  {4, "context parallel", b.cp_communication},
                                  {5, "expert parallel", b.ep_communication},
                                  {6, "pipeline sends", b.pp_communication}};
  for (const auto& tr : model_parallel)
    if (tr.exposed > 0)
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tr.tid}, {"args", {{"name", tr.name}}}});
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1},
                    {"args", {{"name", p.model + " " + p.precision + " on " + std::to_string(p.num_gpus) + "x " + p.gpu}}}});
  const double accum = std::max(1, p.grad_accum);
  double gpu_fwd = 0, gpu_bwd = 0;
  for (const auto& l : p.layers) gpu_fwd += l.forward_s, gpu_bwd += l.backward_s;
  const double fscale = gpu_fwd > 0 ? (b.forward / accum) / gpu_fwd : 0;
  const double bscale = gpu_bwd > 0 ? (b.backward / accum) / gpu_bwd : 0;
  double t = 0;
  const int traced = chrome_trace_microbatches(p);
  for (int mb = 0; mb < traced; ++mb) {
    const std::string tag = accum > 1 ? " [mb " + std::to_string(mb) + "]" : "";
    const double mb_start = t;
    for (const auto& l : p.layers) {
      ev("fwd " + l.name + tag, "forward", 1, t, l.forward_s * fscale);
      t += l.forward_s * fscale;
    }
    if (b.recompute > 0) {  // activation recomputation runs ahead of each micro-batch's backward
      ev("recompute" + tag, "recompute", 1, t, b.recompute / accum);
      t += b.recompute / accum;
    }
    const double bwd_start = t;
    for (auto it = p.layers.rbegin(); it != p.layers.rend(); ++it) {
      ev("bwd " + it->name + tag, "backward", 1, t, it->backward_s * bscale);
      t += it->backward_s * bscale;
    }
    for (const auto& tr : model_parallel)
      if (tr.exposed > 0) ev(std::string(tr.name) + " exposed" + tag, "communication", tr.tid, mb_start, tr.exposed / accum);
    if (mb + 1 == static_cast<int>(accum) || mb == 63) {
      int i = 0;
      for (const auto& bk : p.buckets) ev("all_reduce bucket " + std::to_string(i++), "communication", 2, bwd_start + bk.ready_s, bk.duration_s);
    }
  }
  const double kernels_end = t;
  if (b.pp_bubble > 0) {  // pipeline fill and drain, shown as one idle span
    ev("pipeline bubble", "pp_bubble", 1, t, b.pp_bubble);
    t += b.pp_bubble;
  }
  t += b.communication_exposed;
  if (b.loss_scaling > 0) {
    ev("unscale + inf/nan check", "loss_scaling", 1, t, b.loss_scaling);
    t += b.loss_scaling;
  }
  ev("optimizer step", "optimizer", 1, t, b.optimizer);
  append_energy_counters(p, events, kernels_end, t - b.loss_scaling);
  json trace = {{"traceEvents", events}, {"displayTimeUnit", "ms"},
                {"otherData", {{"iteration_seconds", p.iteration_s}, {"predictor", p.predictor_kind}}}};
  return trace.dump() + "\n";
}

}  // namespace ptp::predict
