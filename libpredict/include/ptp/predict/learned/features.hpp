#pragma once
// Feature vectors of the three learned models. GPUs enter by their spec-sheet numbers (never by
// name) so unseen GPUs are answered from their catalog entry; precision enters explicitly through
// the policy (math-mode peak, bytes per element, loss scaling, casts) so the trees do not have to
// guess it. Targets are log ratios against analytical bounds, which generalize across models; the
// aggregator sees workload shape only through fractions and shares (absolute model size and op
// counts let trees memorise models and cost 5 points of leave-one-model-out error), and GPUs only
// through rates (peaks, bandwidth, ridge, architecture): memory size, SM count and L2 let the trees
// recognise individual GPUs and cost 1 point of leave-one-GPU-out error). The compute model leaves out SM
// count and L2 size for the same reason (0.2-0.4 points of leave-one-GPU-out step error).
#include <string>
#include <vector>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/learned/unsharded_rows.hpp"
#include "ptp/predict/learned/support.hpp"
#include "ptp/predict/prediction.hpp"
#include "ptp/predict/resolved_job.hpp"
#include "ptp/vocab/op_class.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

// Aggregator: one row per job, from the composed analytical/learned step.
const std::vector<std::string>& run_feature_names(bool blind);
// `analytical` is the same job composed by the analytical model alone (no learned levels): the
// aggregator sees what the learned levels changed (for an analytical `composed`, pass it twice).
// Every feature read off the composed step is measured over its busy part, the step without its
// exposed communication, so a faster fabric reaches the trees only through the features constrained
// to never ask for a larger correction with it (the bandwidths, comm_exposed_share).
std::vector<float> run_features(const ResolvedJob& job, const Prediction& composed, bool blind,
                                const Prediction& analytical);
// A job's step halves (support.hpp): the optimizer and exposed data-parallel communication apart from
// the rest, composed and analytical.
StepHalves step_halves(const Prediction& composed, const Prediction& analytical);
// A job's aggregator row, and where shrinkage toward the analytical answer starts from: the job's own
// step halves (sharded as it is, unlike the row).
struct AggregatorRowValues {
  std::vector<float> features;
  StepHalves halves;
};
// The aggregator's row of a job as ptp-predict and ptp-train build it: composed with `composing`
// (the learned lower levels) and `analytical`, as if unsharded. ZeRO/FSDP shard optimizer state,
// gradients and parameters, never the math, so nothing sharding moves reaches the correction
// (before, the trees learned that sharded jobs come from faster codebases). `composed` is the job's
// own composition, reused when it is not sharded.
// `rows`: where the rows of unsharded jobs are kept across jobs (null: none kept).
AggregatorRowValues aggregator_features(const ResolvedJob& job, const Prediction& composed,
                                        const AnalyticalConstants& composing, const AnalyticalConstants& analytical,
                                        bool blind, UnshardedRows* rows = nullptr);

// Compute model: one kernel.
struct OpShape {
  OpClass op_class = OpClass::gemm;  // gemm | batched_gemm | elementwise | layernorm | softmax
  double m = 0, n = 0, k = 0, batch = 1, flops = 0, bytes = 0;
  std::string math;      // fp32 | tf32 | fp16 | bf16 | fp8
};
// GEMM and batched GEMM run at a math mode; the other classes are memory-bound.
bool is_gemm_class(const OpShape& op);
const std::vector<std::string>& op_feature_names();
std::vector<float> op_features(const OpShape& op, const GpuSpec& gpu);
double op_roofline_seconds(const OpShape& op, const GpuSpec& gpu);
// The compute model learns log(measured / op_analytical_seconds): a residual on the analytical kernel
// model rather than on the bare roofline, so a GPU with no kernel rows starts from the curves the
// analytical predictor was calibrated with (leave-one-GPU-out kernel MAPE in the report).
double op_analytical_seconds(const OpShape& op, const GpuSpec& gpu);

// Communication model: one all-reduce.
struct CollectiveShape {
  double bytes = 0;
  int ranks = 2, nodes = 1, ranks_per_node = 2;
};
const std::vector<std::string>& collective_feature_names();
std::vector<float> collective_features(const CollectiveShape& c, const GpuSpec& gpu, const FabricSpec* fabric);
// Ring bound: 2(n-1)/n * bytes over the slowest link (NVLink/PCIe in a node, NICs across nodes).
double collective_bound_seconds(const CollectiveShape& c, const GpuSpec& gpu, const FabricSpec* fabric);

}  // namespace ptp::predict
