#pragma once
// A job spec joined with everything it names: GPU, fabric, precision policy, model and workload.
// Validation that needs the catalogs (unknown ids, precision the GPU cannot run, missing seq_len)
// happens here.
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "ptp/predict/codebase_stack.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/model_zoo.hpp"
#include "ptp/predict/price.hpp"
#include "ptp/predict/workload.hpp"
#include "ptp/vocab/fp8_recipe.hpp"
#include "ptp/vocab/hardware.hpp"
#include "ptp/vocab/memory_convention.hpp"
#include "ptp/vocab/precision.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

// Loaded once per process and shared by every prediction (sweeps predict thousands of jobs) and
// every thread: a model description is read on first use, under a lock, and never changes after.
class Catalogs {
 public:
  explicit Catalogs(const std::string& config_dir);
  const GpuCatalog& gpus() const { return gpus_; }
  const FabricCatalog& fabrics() const { return fabrics_; }
  const std::string& models_dir() const { return models_dir_; }
  const ModelDesc& model(const std::string& id_or_path) const;  // cached; safe from any thread
  // A model given as model YAML text (a launch file's sizes, launch_import.hpp), cached by its text:
  // the zoo's entry when its sizes are the zoo model's in full (zoo_model_matching), else the text's.
  const ModelDesc& model_from_text(const std::string& yaml_text) const;

 private:
  GpuCatalog gpus_;
  FabricCatalog fabrics_;
  std::string models_dir_;
  mutable std::mutex models_lock_;
  mutable std::map<std::string, std::unique_ptr<ModelDesc>> models_;  // entries never move or change
  mutable std::map<std::string, std::unique_ptr<ModelDesc>> text_models_;
  mutable std::map<std::string, const ModelDesc*> text_zoo_;  // the zoo entry each text is, or null
};

// The zoo model whose every transformer parameter the launch file's model has (kv_heads, head_dim
// and qkv_bias at their defaults where one leaves them out; a vocabulary padded by under 1 %), or null.
const ModelDesc* zoo_model_matching(const ModelDesc& launch_model, const Catalogs& catalogs);

class StepMemo;  // libpredict-private (analytical/step_memo.hpp)

// A workload built once and shared by the many variants of a job that a search resolves, with what
// the step model derives from the workload alone (its block count; pipeline partitions and per-op
// sums, in StepMemo) kept beside it. Used by one thread at a time.
// A transformer's numbers the layout rules divide (heads, Mamba-2 groups, experts) and the
// parallel layout's communication volumes use (make_layout), read from its YAML.
struct LayoutLimits {
  double heads = 0;
  std::optional<double> mamba_groups;
  double experts = 0;
  double hidden = 0, kv_dim = 0, experts_per_token = 0, expert_width = 0;
};

struct SharedWorkload {
  Workload workload;
  int blocks = 0;  // count_blocks(workload)
  std::shared_ptr<StepMemo> memo;
  // Sums over every op, the same for each layout: workload.fwd_flops(), bwd_flops() and
  // model_flops_per_microbatch(workload, true) (ptp/predict/detail/parallelism.hpp).
  double fwd_flops = 0, bwd_flops = 0, model_flops = 0;
  double attention_model_flops = 0;  // attention_model_flops_per_microbatch(workload)
  // Read once for a transformer that has them all (else every layout reads them, as resolve_job and
  // make_layout do for an unshared workload): a search checks and lays out ~10^5 layouts of one model.
  std::optional<LayoutLimits> limits;
};
std::shared_ptr<const SharedWorkload> share_workload(Workload w);
std::shared_ptr<const SharedWorkload> share_workload(Workload w, const ModelDesc& model);

// A rule of the job spec a configuration breaks: the field blamed and why.
struct Refusal {
  std::string field, why;
};

struct ResolvedJob {
  JobSpec job;
  const GpuSpec* gpu = nullptr;
  const FabricSpec* fabric = nullptr;
  const PrecisionPolicy* policy = nullptr;
  const Fp8Recipe* fp8_recipe = nullptr;  // null unless the policy's GEMMs run in FP8
  TrainingStateBytes state;  // the memory convention applied to the policy
  double quantized_base_bytes = 0;  // per frozen block projection weight under QLoRA; 0: not quantised
  const ModelDesc* model = nullptr;
  Workload workload;         // one micro-batch on one GPU (empty when `shared` is set: read work())
  std::shared_ptr<const SharedWorkload> shared;  // set by the search's resolve_job overload
  const Workload& work() const { return shared ? shared->workload : workload; }
  int gpus_per_node = 1;
  int nodes = 1;
  int data_parallel = 1;
  double samples_per_step = 0;  // global batch per optimizer step
  PriceQuote price;             // of one GPU-hour (price.hpp)
  // The descriptors the job left unset that its codebase's recipes fill (codebase_stack.hpp).
  std::vector<const CodebaseStackDefault*> codebase_stack;
};

ResolvedJob resolve_job(const JobSpec& job, const Catalogs& catalogs);
// The workload depends only on the model, the micro-batch and seq_len: a search resolving many
// variants of one job shares the one it built for them instead of copying it into each.
ResolvedJob resolve_job(const JobSpec& job, const Catalogs& catalogs, std::shared_ptr<const SharedWorkload> workload);
// The same, for a search that refuses most of its configurations: a broken rule is returned in
// `refused` (when given) instead of thrown. Unknown ids (GPU, fabric, model) still throw.
std::optional<ResolvedJob> resolve_shared_job(const JobSpec& job, const Catalogs& catalogs,
                                              std::shared_ptr<const SharedWorkload> workload, Refusal* refused);
// resolve_job in its two steps, for a session that shares workloads (prediction_caches.hpp): the job
// resolved up to its workload (catalog entries, precision, memory, cluster; throws what resolve_job
// throws there), then its workload either built and checked, or taken from an earlier job whose
// workload is the same (the layout rules checked as building it would).
ResolvedJob resolve_job_frame(const JobSpec& job, const Catalogs& catalogs);
void build_job_workload(ResolvedJob& frame, const JobSpec& job);
void attach_workload(ResolvedJob& frame, const JobSpec& job, std::shared_ptr<const SharedWorkload> workload);
// Why the GPU cannot train at this precision (too old for it, no TF32 tensor cores), or "".
std::string precision_refusal(const GpuSpec& g, const PrecisionPolicy& p);
// The precision `g` runs that is nearest to `p` (GEMM operand width, then weight handling, then the
// 16-bit dtype); null when it runs none other.
const PrecisionPolicy* nearest_runnable_precision(const GpuSpec& g, const PrecisionPolicy& p);

}  // namespace ptp::predict
