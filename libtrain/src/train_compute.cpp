// train_bundle's compute level: op time relative to the analytical kernel model (log of measured /
// op_analytical_seconds), from the ops tables, with leave-one-GPU-out metrics for the report.
#include <algorithm>
#include <cmath>
#include <set>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/learned/features.hpp"
#include "ptp/train/flatten_xgboost.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/math_mode.hpp"
#include "trainer_levels.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train::detail {

namespace {

constexpr std::size_t kMaxOpRows = 12000;

struct OpTrainingSet {
  DenseMatrix x;
  std::vector<float> y;
  std::vector<double> bound, roofline, measured;  // bound: op_analytical_seconds, the model's base
  std::vector<std::string> gpu;
  std::vector<std::string> math;  // GEMM classes: the math mode they ran; others: "memory-bound <dtype>"
  std::set<std::string> maths;
  std::set<std::string> measured_pairs;  // measured_key() of every row
};

OpTrainingSet op_training_set(const Table<OpRecord>& ops, const GpuCatalog& gpus, std::map<std::string, int>& skipped) {
  OpTrainingSet s;
  static const std::set<OpClass> classes{OpClass::gemm, OpClass::batched_gemm, OpClass::elementwise, OpClass::layernorm,
                                         OpClass::softmax};
  // The op tables sweep shapes densely; every `stride`-th row keeps the shape coverage at a fraction
  // of the training time (the selection is deterministic).
  const std::size_t stride = std::max<std::size_t>(1, ops.rows.size() / kMaxOpRows);
  if (stride > 1)
    skipped["thinned to every " + std::to_string(stride) + "th row (at most " + std::to_string(kMaxOpRows) +
            " op rows are trained on)"] += static_cast<int>(ops.rows.size() - (ops.rows.size() + stride - 1) / stride);
  for (std::size_t i = 0; i < ops.rows.size(); i += stride) {
    const auto& r = ops.rows[i];
    if (!classes.count(r.op_class)) {
      ++skipped[std::string("op class not modelled (") + name_of(op_class_names(), r.op_class) + ")"];
      continue;
    }
    const GpuSpec* g = gpus.find(r.gpu);
    if (!g) { ++skipped[skip_reason_for_gpu(r.gpu)]; continue; }
    OpShape shape{r.op_class, r.m, r.n, r.k, std::max(1.0, r.batch), r.flops, r.bytes, r.dtype};
    if (!is_gemm_class(shape)) shape.math = "fp32";
    if (const MathMode* mode = find_math_mode(shape.math)) shape.math = mode->trains_as;
    if (!is_gemm_class(shape) && shape.m == 0) shape.m = r.bytes / 4;
    const double bound = op_analytical_seconds(shape, *g);
    if (!(bound > 0)) { ++skipped["no roofline bound"]; continue; }
    s.x.add_row(op_features(shape, *g));
    s.y.push_back(static_cast<float>(std::log(r.time_s / bound)));
    s.bound.push_back(bound);
    s.roofline.push_back(op_roofline_seconds(shape, *g));
    s.measured.push_back(r.time_s);
    s.gpu.push_back(g->id);
    s.math.push_back(is_gemm_class(shape) ? "gemm " + r.dtype : "memory-bound " + r.dtype);
    if (is_gemm_class(shape)) s.maths.insert(shape.math);
    s.measured_pairs.insert(measured_key(g->id, shape));
  }
  return s;
}

}  // namespace

ComputeLevel train_compute_level(const TrainOptions& o, const Catalogs& catalogs, const Table<OpRecord>& ops,
                                 const BoosterParams& params, nlohmann::json& metrics) {
  ComputeLevel level;
  level.skipped = ops.excluded;
  auto op_set = op_training_set(ops, catalogs.gpus(), level.skipped);
  if (op_set.y.size() < 50) throw InputError(ops.path, 0, 0, "", "fewer than 50 usable op measurements");
  BoosterParams op_params = params;
  op_params.rounds = 150;
  op_params.max_depth = 6;
  op_params.eta = 0.1;
  op_params.objective = "reg:squarederror";
  if (o.cross_validate) {
    const auto split = group_split("leave_one_gpu_out", op_set.gpu);
    BoosterParams cv_params = op_params;
    cv_params.rounds = 80;  // report-only CV: fewer rounds keep ptp-train within its time budget
    const auto oof = out_of_fold(op_set.x, op_set.y, op_feature_names(), cv_params, split);
    std::vector<double> pred(oof.size());
    for (std::size_t i = 0; i < oof.size(); ++i) pred[i] = op_set.bound[i] * std::exp(oof[i]);
    const auto ape_learned = ape_of(op_set.measured, pred), ape_roof = ape_of(op_set.measured, op_set.roofline),
               ape_an = ape_of(op_set.measured, op_set.bound);
    metrics["compute"] = {{"rows", op_set.y.size()},
                          {"leave_one_gpu_out", to_json(error_stats(ape_learned))},
                          {"roofline_bound", to_json(error_stats(ape_roof))},
                          {"analytical_kernel", to_json(error_stats(ape_an))}};
    // Per math mode (GEMM classes) and element type (memory-bound classes): how the compute level does
    // on a GPU whose kernels it never saw. A math mode with no kernel rows is declined by the compute
    // level at prediction time (the roofline answers it) and listed here with n = 0.
    nlohmann::json by_math = nlohmann::json::object();
    const auto learned_by = grouped_stats(ape_learned, op_set.math), roof_by = grouped_stats(ape_roof, op_set.math),
               an_by = grouped_stats(ape_an, op_set.math);
    for (const auto& [label, v] : learned_by.items())
      by_math[label] = {{"learned", v}, {"roofline_bound", roof_by[label]}, {"analytical_kernel", an_by[label]}};
    for (const char* m : {"fp32", "tf32", "fp16", "bf16", "fp8"})
      if (!by_math.contains(std::string("gemm ") + m))
        by_math[std::string("gemm ") + m] = {{"learned", to_json(ErrorStats{})}, {"roofline_bound", to_json(ErrorStats{})},
                                             {"analytical_kernel", to_json(ErrorStats{})},
                                             {"note", std::string(m) == "bf16" ? "no kernel rows: answered as fp16"
                                                                                   : "no kernel rows: declined, roofline answers"}};
    metrics["compute"]["leave_one_gpu_out_by_math"] = by_math;
    metrics["compute"]["gpus"] = std::set<std::string>(op_set.gpu.begin(), op_set.gpu.end());
  }
  // The levels compose runs below through their flattened trees, as ptp-predict will.
  if (o.on_training_rows) o.on_training_rows("compute", op_set.x);
  level.bytes = Booster::train(op_set.x, op_set.y, op_feature_names(), op_params).save_ubj();
  level.model = std::make_unique<LearnedOpModel>(flatten_xgboost_ubj(level.bytes, "compute"), op_set.maths,
                                                 op_set.measured_pairs);
  level.model->attach_gpus(&catalogs.gpus());
  if (o.cross_validate) o.log("compute model: " + metrics["compute"].dump());
  level.rows = op_set.y.size();
  level.maths = op_set.maths;
  level.measured_pairs = op_set.measured_pairs;
  return level;
}

}  // namespace ptp::train::detail
