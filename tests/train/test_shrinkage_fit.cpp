// Unit tests of the shrinkage fits (libtrain/src/stack_effects.cpp). The held-out corrections and
// step times here are synthetic (constructed in the test) and only exercise the fit; no measurement
// is involved.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "ptp/train/stack_effects.hpp"

using namespace ptp::predict;
using namespace ptp::train;

namespace {
// Rows of two workload kinds from kMinKindCodebases codebases each, all held out as unknown codebases
// (offset NaN), every one near its training runs. The typical correction says +0.3 in log space over
// the analytical answer (= the composed step here): right for the "cnn" rows, wrong for the "llm" rows,
// whose analytical answer is right.
struct Synthetic {
  HeldOutCorrections h;
  std::vector<double> composed, analytical, measured;
  std::vector<std::string> codebases, kinds;
  void add(const std::string& kind, const std::string& codebase, double step, bool correction_right) {
    h.typical.push_back(0.3);
    h.offset.push_back(std::nan(""));
    h.halves.push_back({step, step, 0, 0});
    h.level.push_back(0);
    Support near;
    near.runs_near = 10;
    h.support.push_back(near);
    h.novelty.push_back(Novelty::none);
    composed.push_back(step);
    analytical.push_back(step);
    measured.push_back(correction_right ? step * std::exp(0.3) : step);
    codebases.push_back(codebase);
    kinds.push_back(kind);
  }
};

Synthetic two_kinds() {
  Synthetic s;
  for (std::size_t c = 0; c < kMinKindCodebases; ++c)
    for (int run = 0; run < 4; ++run) {
      s.add("cnn", "cnn-" + std::to_string(c), 1.0 + run, true);
      s.add("llm", "llm-" + std::to_string(c), 2.0 + run, false);
    }
  return s;
}
}  // namespace

TEST_CASE("an unknown codebase's shrinkage is fitted per workload kind where it has enough codebases", "[shrinkage]") {
  Synthetic s = two_kinds();
  const ShrinkageFitRows rows{s.composed, s.analytical, s.measured, s.codebases};
  CorrectionShrinkage fitted;
  fit_unknown_shrinkage(s.h, rows, s.kinds, {}, fitted);
  REQUIRE(fitted.unknown_by_kind.count("cnn") == 1);
  REQUIRE(fitted.unknown_by_kind.count("llm") == 1);
  // Where the typical correction held, the whole of it; where it did not, none (the analytical answer).
  CHECK(fitted.of_unknown("cnn").max_share == Approx(1));
  CHECK(fitted.of_unknown("cnn").log_correction(s.h.support[0], 0.3, s.h.halves[0], 0) == Approx(0.3));
  CHECK(fitted.of_unknown("llm").max_share == Approx(0));
  // Kinds it has no fit of take the pooled one.
  CHECK(&fitted.of_unknown("recommender") == &fitted.unknown);

  // Half right for the LLM rows: their share moves between the two, and so does the pooled one.
  for (std::size_t i = 0; i < s.measured.size(); ++i)
    if (s.kinds[i] == "llm") s.measured[i] = s.composed[i] * std::exp(0.15);
  fit_unknown_shrinkage(s.h, rows, s.kinds, {}, fitted);
  CHECK(fitted.of_unknown("llm").max_share == Approx(0.5));
  CHECK(fitted.unknown.max_share > 0);
  CHECK(fitted.unknown.max_share < 1);

  // Perturbing the training data moves the fit: make the LLM rows' correction right too.
  for (std::size_t i = 0; i < s.measured.size(); ++i)
    if (s.kinds[i] == "llm") s.measured[i] = s.composed[i] * std::exp(0.3);
  fit_unknown_shrinkage(s.h, rows, s.kinds, {}, fitted);
  CHECK(fitted.of_unknown("llm").max_share == Approx(1));
}

TEST_CASE("a workload kind from fewer codebases than the minimum takes the pooled shrinkage", "[shrinkage]") {
  Synthetic s = two_kinds();
  // One of the LLM codebases runs another kind: "llm" is left with kMinKindCodebases - 1 codebases.
  std::vector<std::string> kinds = s.kinds;
  for (std::size_t i = 0; i < kinds.size(); ++i)
    if (s.codebases[i] == "llm-0") kinds[i] = "other";
  const ShrinkageFitRows rows{s.composed, s.analytical, s.measured, s.codebases};
  CorrectionShrinkage fitted;
  fit_unknown_shrinkage(s.h, rows, kinds, {}, fitted);
  CHECK(fitted.unknown_by_kind.count("cnn") == 1);
  CHECK(fitted.unknown_by_kind.count("llm") == 0);
}

TEST_CASE("a job in a precision no training run had extrapolates, however near its support features lie", "[shrinkage]") {
  Support near;
  near.runs_near = 50;
  CHECK_FALSE(near.extrapolating());
  Support untrained = near;
  untrained.precision_untrained = true;
  CHECK(untrained.extrapolating());
  const Shrinkage s{0.9, 0.0, 0.5, 1.0};
  CHECK(s.share(near) == Approx(0.9));
  CHECK(s.share(untrained) == Approx(0.45));
}
