// Unit tests of the evaluation arithmetic. The residuals here are synthetic (constructed in the test)
// and only exercise the formulas; no measurement is involved.
#include <catch2/catch.hpp>
#include <cmath>

#include "ptp/train/evaluation.hpp"

using namespace ptp::predict;
using namespace ptp::train;

TEST_CASE("MAPE and median APE", "[evaluation]") {
  const auto s = error_stats({10, 20, 30, 100});
  CHECK(s.n == 4);
  CHECK(s.mape == Approx(40));
  CHECK(s.median_ape == Approx(25));
  CHECK(error_stats({}).n == 0);
}

TEST_CASE("grouped statistics split by label", "[evaluation]") {
  const auto j = grouped_stats({10, 30, 50}, {"fp32", "fp32", "amp_fp16"});
  CHECK(j["fp32"]["mape"].get<double>() == Approx(20));
  CHECK(j["amp_fp16"]["n"].get<int>() == 1);
}

TEST_CASE("splits: k-fold is stable, group and scale splits hold out whole groups", "[evaluation]") {
  const std::vector<std::string> keys{"a", "b", "c", "d", "e", "f", "g", "h"};
  const auto k1 = kfold_split(keys, 3), k2 = kfold_split(keys, 3);
  CHECK(k1.fold == k2.fold);
  for (int f : k1.fold) CHECK((f >= 0 && f < 3));
  const auto g = group_split("leave_one_model_out", {"resnet50", "bert", "resnet50"});
  CHECK(g.folds == 2);
  CHECK(g.fold[0] == g.fold[2]);
  CHECK(g.fold[0] != g.fold[1]);
  // Groups below the minimum size only train: one fold per remaining group.
  const auto pairs = group_split("leave_one_stack_out", {"a", "b", "a", "c", "c", "d"}, 2);
  CHECK(pairs.folds == 2);
  CHECK(pairs.fold == std::vector<int>{0, -1, 0, 1, 1, -1});
  const auto s = scale_split({1, 8, 16, 64}, 8);
  CHECK(s.fold == std::vector<int>{-1, -1, 0, 0});
}

TEST_CASE("quantiles interpolate between sorted values", "[evaluation]") {
  CHECK(quantile({3, 1, 2}, 0.5) == Approx(2));
  CHECK(quantile({0, 10}, 0.1) == Approx(1));
}

TEST_CASE("the scatter plot is a standalone SVG with one point per row", "[evaluation]") {
  const auto svg = scatter_svg({0.1, 0.2, 1.0}, {0.11, 0.25, 0.9}, {"fp32", "amp_fp16", "fp32"}, "t");
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  std::size_t circles = 0;
  for (std::size_t p = svg.find("<circle"); p != std::string::npos; p = svg.find("<circle", p + 1)) ++circles;
  CHECK(circles == 3 + 2);  // points + legend entries
}

