// train_bundle's communication level: all-reduce time relative to the ring bound (log of measured /
// collective_bound_seconds), from the collectives table, with k-fold and leave-one-GPU-out metrics.
#include <algorithm>
#include <cmath>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/learned/features.hpp"
#include "ptp/train/flatten_xgboost.hpp"
#include "ptp/vocab/error.hpp"
#include "trainer_levels.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train::detail {

namespace {
// What ptp-predict --analytical answers for the row's all-reduce: one bucket of the row's size over
// its ranks, peer-to-peer (every published all-reduce ran with P2P).
double analytical_allreduce_seconds(const CollectiveRecord& r, const GpuSpec& gpu, const FabricSpec* fabric) {
  ResolvedJob job;
  job.gpu = &gpu;
  job.fabric = fabric;
  job.job.cluster.nccl_p2p = true;
  job.data_parallel = r.ranks;
  job.gpus_per_node = r.ranks_per_node;
  job.nodes = r.nodes;
  AnalyticalConstants k;
  k.bucket_bytes = r.size_bytes;
  return allreduce_time(r.size_bytes, job, k).seconds;
}
}  // namespace

CommunicationLevel train_communication_level(const TrainOptions& o, const Catalogs& catalogs,
                                             const Table<CollectiveRecord>& colls, const BoosterParams& params,
                                             nlohmann::json& metrics) {
  DenseMatrix cx;
  std::vector<float> cy;
  std::vector<double> cbound, cmeasured, canalytical;
  std::vector<std::string> ckeys, cgpus;
  CommunicationLevel level;
  level.skipped = colls.excluded;
  for (const auto& r : colls.rows) {
    const GpuSpec* g = catalogs.gpus().find(r.gpu);
    if (!g) {
      ++level.skipped[skip_reason_for_gpu(r.gpu)];
      continue;
    }
    const FabricSpec* fabric = catalogs.fabrics().find(r.fabric_inter);
    if (!fabric) fabric = catalogs.fabrics().find(g->default_inter_node);
    CollectiveShape c{r.size_bytes, r.ranks, r.nodes, r.ranks_per_node};
    level.reach.max_ranks = std::max(level.reach.max_ranks, r.ranks);
    level.reach.max_nodes = std::max(level.reach.max_nodes, r.nodes);
    const double bound = collective_bound_seconds(c, *g, fabric);
    cx.add_row(collective_features(c, *g, fabric));
    cy.push_back(static_cast<float>(std::log(r.time_s / bound)));
    cbound.push_back(bound);
    canalytical.push_back(analytical_allreduce_seconds(r, *g, fabric));
    cmeasured.push_back(r.time_s);
    ckeys.push_back(std::to_string(r.line) + r.gpu);
    cgpus.push_back(r.gpu);
  }
  if (cy.size() < 20) throw InputError(colls.path, 0, 0, "", "fewer than 20 usable all_reduce measurements");
  BoosterParams comm_params = params;
  comm_params.rounds = 200;
  comm_params.objective = "reg:squarederror";
  if (o.cross_validate) {
    auto held_out = [&](const Split& split) {
      const auto oof = out_of_fold(cx, cy, collective_feature_names(), comm_params, split);
      std::vector<double> pred(oof.size());
      for (std::size_t i = 0; i < oof.size(); ++i) pred[i] = cbound[i] * std::exp(oof[i]);
      return to_json(error_stats(ape_of(cmeasured, pred)));
    };
    // Leave-one-GPU-out says what the level is worth on a machine without collective rows (its
    // features describe GPU and fabric by their specs; the rows cover few machines).
    metrics["communication"] = {{"rows", cy.size()},
                                {"kfold", held_out(kfold_split(ckeys, 5))},
                                {"leave_one_gpu_out", held_out(group_split("leave_one_gpu_out", cgpus))},
                                {"ring_bound", to_json(error_stats(ape_of(cmeasured, cbound)))},
                                {"analytical", to_json(error_stats(ape_of(cmeasured, canalytical)))}};
  }
  if (o.on_training_rows) o.on_training_rows("communication", cx);
  level.bytes = Booster::train(cx, cy, collective_feature_names(), comm_params).save_ubj();
  level.model = std::make_unique<LearnedCollectiveModel>(flatten_xgboost_ubj(level.bytes, "communication"), level.reach);
  if (o.cross_validate) o.log("communication model: " + metrics["communication"].dump());
  level.rows = cy.size();
  return level;
}

}  // namespace ptp::train::detail
