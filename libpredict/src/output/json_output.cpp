#include "ptp/predict/output.hpp"

namespace ptp {

namespace {
nlohmann::json or_null(bool present, double v) { return present ? nlohmann::json(v) : nlohmann::json(nullptr); }
}  // namespace

nlohmann::json prediction_json(const Prediction& p) {
  using nlohmann::json;
  const auto& b = p.breakdown;
  const bool has_total = p.total_steps > 0;
  json j;
  j["model"] = p.model;
  j["precision"] = p.precision;
  j["gpu"] = p.gpu;
  j["num_gpus"] = p.num_gpus;
  j["nodes"] = p.nodes;
  j["gpus_per_node"] = p.gpus_per_node;
  j["framework"] = p.framework;
  j["batch_size"] = p.batch_size;
  j["grad_accum"] = p.grad_accum;
  j["seq_len"] = p.seq_len > 0 ? json(p.seq_len) : json(nullptr);
  j["iteration"] = {{"seconds", p.iteration_s},
                    {"low", p.iteration_low_s},
                    {"high", p.iteration_high_s},
                    {"breakdown",
                     {{"forward", b.forward},
                      {"backward", b.backward},
                      {"optimizer", b.optimizer},
                      {"communication", b.communication},
                      {"communication_exposed", b.communication_exposed},
                      {"loss_scaling", b.loss_scaling},
                      {"precision_casts", b.precision_casts},
                      {"framework_overhead", b.framework_overhead}}}};
  j["throughput"] = {{"samples_per_second", p.samples_per_second},
                     {"tokens_per_second", or_null(p.tokens_per_second > 0, p.tokens_per_second)}};
  j["total"] = {{"steps", or_null(has_total, p.total_steps)},
                {"seconds", or_null(has_total, p.total_seconds)},
                {"gpu_hours", or_null(has_total, p.gpu_hours)},
                {"cost_usd", or_null(has_total && p.has_cost, p.cost_usd)}};
  const auto& m = p.memory;
  j["memory"] = {{"per_gpu_bytes", m.per_gpu_bytes},
                 {"capacity_bytes", m.capacity_bytes},
                 {"fits", m.fits},
                 {"weights_bytes", m.weights},
                 {"gradients_bytes", m.gradients},
                 {"optimizer_state_bytes", m.optimizer_state},
                 {"activations_bytes", m.activations}};
  j["predictor"] = {{"kind", p.predictor_kind}, {"bundle", p.bundle.empty() ? json(nullptr) : json(p.bundle)}};
  j["warnings"] = p.warnings;
  return j;
}

std::string render_json(const Prediction& p) { return prediction_json(p).dump(2) + "\n"; }

std::string render_jsonl(const std::vector<SweepRow>& rows) {
  std::string out;
  for (const auto& r : rows) {
    auto j = prediction_json(r.prediction);
    if (!r.settings.empty()) {
      nlohmann::json s;
      for (const auto& kv : r.settings) s[kv.first] = kv.second;
      j["sweep"] = s;
    }
    out += j.dump() + "\n";
  }
  return out;
}

}  // namespace ptp
