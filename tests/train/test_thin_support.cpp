// ThinSupportShares: what thin support leaves of the learned correction, fitted on held-out rows.
// Every held-out row here is synthetic (made-up step times), built so the right share is known.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "ptp/predict/learned/thin_support.hpp"
#include "ptp/train/thin_support_fit.hpp"
#include "ptp/vocab/error.hpp"

using namespace ptp::predict;
using namespace ptp::train;

namespace {

// Rows of two GPUs of one architecture with 60 runs each (thin), one precision with 500 (not thin).
struct SyntheticRows {
  std::vector<std::string> gpus, architectures, precisions, kinds, codebases;
  std::vector<double> composed, analytical, measured;
  HeldOutCorrections held;  // every row held out with no run of its architecture in its fold
  SyntheticRows(double analytical_over_measured, double correction_over_measured) {
    for (int i = 0; i < 120; ++i) {
      gpus.push_back(i < 60 ? "gpu-a" : "gpu-b");
      architectures.push_back("newarch");
      precisions.push_back("bf16");
      kinds.push_back("transformer/decoder-only");
      codebases.push_back("stack");
      const double m = 1.0 + 0.01 * i;
      measured.push_back(m);
      composed.push_back(m);
      analytical.push_back(m * analytical_over_measured);
      held.typical.push_back(std::log(correction_over_measured));
      held.offset.push_back(std::nan(""));
      StepHalves h;
      h.invariant_composed = m;
      h.invariant_analytical = m * analytical_over_measured;
      held.halves.push_back(h);
      held.level.push_back(0);
      Support s;
      s.runs_near = 5;
      held.support.push_back(s);
      held.novelty.push_back(Novelty::gpu);
      held.gpu_runs.push_back(0);
      held.architecture_gpu_runs.push_back(0);
      held.precision_runs.push_back(500);
    }
  }
};

ThinSupportShares fit(SyntheticRows& r, nlohmann::json& figures) {
  const ShrinkageFitRows fit_rows{r.composed, r.analytical, r.measured, r.codebases};
  const ThinSupportRows d{r.gpus, r.architectures, r.precisions, r.kinds};
  return fit_thin_support(r.held, r.held, r.held, fit_rows, d, CorrectionShrinkage{}, figures);
}

}  // namespace

TEST_CASE("thin support: the share follows what held-out rows show the correction earns", "[learned][thin]") {
  // The correction 1.5x off and the analytical answer right: a thin architecture steps aside.
  SyntheticRows wrong(1.0, 1.5);
  nlohmann::json figures;
  const ThinSupportShares aside = fit(wrong, figures);
  REQUIRE(aside.gpu_by_architecture.count("newarch") == 1);
  CHECK(aside.gpu_share("newarch") == 0.0);
  CHECK(aside.gpu_pooled == 0.0);
  CHECK(figures["gpu"]["gpu-a"]["whole_correction"].get<double>() == Approx(50.0).margin(0.01));
  CHECK(figures["gpu"]["gpu-a"]["thin_share"].get<double>() == Approx(0.0).margin(0.01));

  // Perturbed: the correction right and the analytical answer 1.5x off. The same rows keep it all.
  SyntheticRows right(1.5, 1.0);
  const ThinSupportShares kept = fit(right, figures);
  CHECK(kept.gpu_share("newarch") == 1.0);
  CHECK(kept.gpu_pooled == 1.0);

  // Only a thin architecture (or precision) moves: a GPU with a well-supported sibling keeps it all.
  CHECK(aside.factor("newarch", 20, "bf16", 500) == 0.0);
  CHECK(aside.factor("newarch", kThinSupportRuns, "bf16", 500) == 1.0);
  CHECK(ThinSupportShares{}.factor("newarch", 0, "bf16", 0) == 1.0);  // bundles before it
}

TEST_CASE("thin support: a manifest's shares are checked", "[learned][thin]") {
  ThinSupportShares s;
  s.fitted = true;
  s.gpu_by_architecture["blackwell"] = 0.7;
  s.by_precision["fp4"] = 0.9;
  const auto back = ThinSupportShares::from_json(s.to_json(), "manifest.json");
  CHECK(back.gpu_share("blackwell") == 0.7);
  CHECK(back.precision_share("fp4") == 0.9);
  CHECK(back.gpu_share("rubin") == back.gpu_pooled);

  auto bad = s.to_json();
  bad["gpu_by_architecture"]["blackwell"] = 1.5;
  CHECK_THROWS_WITH(ThinSupportShares::from_json(bad, "manifest.json"),
                    Catch::Contains("shrinkage.thin_support.gpu_by_architecture.blackwell") &&
                        Catch::Contains("between 0 and 1"));
  bad = s.to_json();
  bad["thin_below_runs"] = 50;
  CHECK_THROWS_WITH(ThinSupportShares::from_json(bad, "manifest.json"), Catch::Contains("thin_below_runs"));
}
