#include "ptp/predict/output.hpp"
#include "ptp/predict/analytical.hpp"
#include "ptp/predict/energy_output.hpp"
#include "ptp/vocab/version.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

nlohmann::json tool_json() { return {{"version", ptp_version()}, {"output_schema", kOutputSchemaVersion}}; }

namespace {
using nlohmann::json;

json or_null(bool present, double v) { return present ? json(v) : json(nullptr); }

json iteration_json(const Prediction& p) {
  const auto& b = p.breakdown;
  return {{"seconds", p.iteration_s},
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
            {"framework_overhead", b.framework_overhead},
            {"tp_communication", b.tp_communication},
            {"cp_communication", b.cp_communication},
            {"ep_communication", b.ep_communication},
            {"pp_communication", b.pp_communication},
            {"dp_communication", b.dp_communication},
            {"pp_bubble", b.pp_bubble},
            {"recompute", b.recompute}}}};
}

json parallelism_json(const LayoutSummary& l) {
  return {{"tensor", l.tensor},
          {"pipeline", l.pipeline},
          {"virtual_pipeline", l.virtual_pipeline},
          {"context", l.context},
          {"expert", l.expert},
          {"data", l.data},
          {"sequence_parallel", l.sequence_parallel},
          {"sharding", sharding_name(l.sharding)},
          {"activation_checkpointing", recompute_name(l.activation_checkpointing)},
          {"microbatches", l.microbatches},
          {"bubble_fraction", l.bubble_fraction},
          {"memory_stage", l.memory_stage}};
}

json memory_json(const MemoryEstimate& m) {
  return {{"per_gpu_bytes", m.per_gpu_bytes},
          {"capacity_bytes", m.capacity_bytes},
          {"fits", m.fits},
          {"near_capacity", m.near_capacity},
          {"headroom", kMemoryHeadroom},
          {"allocated_bytes", m.allocated_bytes},
          {"reserved_bytes", m.reserved_bytes},
          {"runtime_bytes", m.runtime_bytes},
          {"convention", m.convention},
          {"weights_bytes", m.weights},
          {"master_weights_bytes", m.master_weights},
          {"gradients_bytes", m.gradients},
          {"optimizer_state_bytes", m.optimizer_state},
          {"fp8_weight_copies_bytes", m.fp8_weight_copies},
          {"activations_bytes", m.activations},
          {"workspace_bytes", m.workspace}};
}

json predictor_json(const Prediction& p) {
  json j = {{"kind", p.predictor_kind},
            {"bundle", p.bundle.empty() ? json(nullptr) : json(p.bundle)},
            {"compute_learned_share", p.compute_learned_share},
            {"communication", p.communication_predictor},
            {"communication_learned_weight",
             p.communication_predictor == "learned" ? json(p.communication_learned_weight) : json(nullptr)},
            {"aggregator_share", p.aggregator_share},
            {"bundle_checksum", p.bundle_checksum.empty() ? json(nullptr) : json(p.bundle_checksum)}};
  if (p.support.assessed) {
    const auto& s = p.support;
    j["support"] = {{"runs_near", s.runs_near},
                    {"outside", s.outside},
                    {"extrapolating", s.extrapolating},
                    {"precision_of_one_codebase",
                     s.precision_of_one_codebase.empty() ? json(nullptr) : json(s.precision_of_one_codebase)},
                    {"codebase", s.codebase.empty() ? json(nullptr) : json(s.codebase)},
                    {"codebase_known", s.codebase_known},
                    {"codebase_offset", s.codebase_offset},
                    {"new", s.novelty.empty() ? json(nullptr) : json(s.novelty)},
                    {"gpu_runs", s.gpu_runs < 0 ? json(nullptr) : json(s.gpu_runs)},
                    {"precision_runs", s.precision_runs < 0 ? json(nullptr) : json(s.precision_runs)},
                    {"thin_support_factor", s.thin_support_factor},
                    {"band", s.band}};
  }
  return j;
}

json calibration_json(const CalibrationSummary& c) {
  json factors = json::object();
  for (const auto& [name, f] : c.factors) factors[name] = f;
  return {{"points", c.points},
          {"configurations", c.configurations},
          {"sources", c.sources},
          {"method", c.method},
          {"factors", factors},
          {"fit_residual", c.fit_residual},
          {"uncalibrated_residual", c.uncalibrated_residual},
          {"fit_step_error", c.fit_step_error},
          {"uncalibrated_step_error", c.uncalibrated_step_error},
          {"uncalibrated_seconds", c.uncalibrated_iteration_s}};
}

}  // namespace

nlohmann::json prediction_json(const Prediction& p) {
  const bool has_total = p.total_steps > 0;
  json j;
  j["ptp"] = tool_json();
  j["job"] = p.job_file.empty() ? json(nullptr) : json(p.job_file);
  j["set"] = p.set_flags;
  j["model"] = p.model;
  j["precision"] = p.precision;
  j["gpu"] = p.gpu;
  j["num_gpus"] = p.num_gpus;
  j["nodes"] = p.nodes;
  j["gpus_per_node"] = p.gpus_per_node;
  j["framework"] = p.framework;
  j["attention_kernel"] = p.attention_kernel.empty() ? json(nullptr) : json(p.attention_kernel);
  j["fp8_recipe"] = p.fp8_recipe.empty() ? json(nullptr) : json(p.fp8_recipe);
  j["stack"] = json::array();
  for (const auto& s : p.stack)
    j["stack"].push_back({{"field", s.field},
                          {"stated", s.stated},
                          {"value", s.stated || !s.codebase.empty() ? json(s.value) : json(nullptr)},
                          {"from", s.stated ? "job" : !s.codebase.empty() ? "codebase" : "assumption"},
                          {"effect", s.effect}});
  j["batch_size"] = p.batch_size;
  j["grad_accum"] = p.grad_accum;
  j["seq_len"] = p.seq_len > 0 ? json(p.seq_len) : json(nullptr);
  j["iteration"] = iteration_json(p);
  j["throughput"] = {{"samples_per_second", p.samples_per_second},
                     {"tokens_per_second", or_null(p.tokens_per_second > 0, p.tokens_per_second)},
                     {"tokens_per_second_per_gpu", or_null(p.tokens_per_second > 0, p.tokens_per_second_per_gpu)}};
  j["valid"] = p.valid;
  j["error"] = p.valid ? json(nullptr) : json(p.error);
  // Which peak each utilisation is against is spelled out, since FP8 MFU is quoted both ways.
  j["mfu"] = p.mfu;
  j["mfu_precision_peak"] = p.mfu_precision_peak;
  j["mfu_basis"] = {{"model_flops_per_step", p.model_flops_per_step},
                    {"model_flops", p.model_flops_basis.empty() ? model_flops_basis(FinetuneSpec{})
                                                                : p.model_flops_basis},
                    {"attention_share", p.model_flops_attention_share},
                    {"mfu_6n", p.mfu_precision_peak * (1 - p.model_flops_attention_share)},
                    {"mfu_peak", p.mfu_peak_basis},
                    {"mfu_precision_peak", p.mfu_precision_peak_basis}};
  j["parallelism"] = parallelism_json(p.layout);
  j["total"] = {{"steps", or_null(has_total, p.total_steps)},
                {"seconds", or_null(has_total, p.total_seconds)},
                {"gpu_hours", or_null(has_total, p.gpu_hours)},
                {"cost_usd", or_null(has_total && p.has_cost, p.cost_usd)},
                {"high_seconds", or_null(has_total, total_high_seconds(p))},
                {"evaluations", p.evaluations},
                {"eval_seconds", p.eval_seconds},
                {"checkpoints", p.checkpoints},
                {"checkpoint_seconds", p.checkpoint_seconds}};
  // The price behind cost_usd: job (cost.usd_per_gpu_hour), catalog (configs/gpus), default (the
  // job's price reused for a GPU the catalog does not price) or none.
  j["cost"] = {{"usd_per_gpu_hour", or_null(p.has_cost, p.price.usd_per_gpu_hour)},
               {"usd_per_hour", or_null(p.has_cost, p.usd_per_hour)},
               {"source", p.price.source},
               {"label", p.price.label}};
  j["memory"] = memory_json(p.memory);
  j["energy"] = energy_json(p.energy);
  j["predictor"] = predictor_json(p);
  if (p.calibration.applied) j["calibration"] = calibration_json(p.calibration);
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

}  // namespace ptp::predict
