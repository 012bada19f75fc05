// The flattened trees ptp-predict answers from must be XGBoost's predictions, bit for bit where it
// matters: the shipped bundle's three levels on every row they were trained on, plus those rows with
// missing values (default directions) and values on split thresholds.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "ptp/predict/learned/tree_ensemble.hpp"
#include "ptp/train/booster.hpp"
#include "ptp/train/flatten_xgboost.hpp"
#include "ptp/train/trainer.hpp"
#include "ptp/vocab/error.hpp"
#include "support/run_command.hpp"

using namespace ptp::predict;
using namespace ptp::train;

namespace {
const std::string kShipped = std::string(PTP_SOURCE_DIR) + "/models/default";

double max_abs_difference(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    REQUIRE(std::isfinite(a[i]));
    worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  }
  return worst;
}

// Every row again with one feature missing (NaN), cycling through the features: the walks take
// the trees' default directions.
DenseMatrix with_missing_values(const DenseMatrix& x) {
  DenseMatrix out = x;
  for (std::size_t r = 0; r < out.rows; ++r) out.values[r * out.cols + r % out.cols] = std::nanf("");
  return out;
}

std::string one_line_error(const std::string& bytes) {
  try {
    TreeEnsemble::parse(bytes, "x.trees");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A small booster on integer-valued features, some missing: split thresholds fall on the values
// themselves, so equality with a threshold and default directions are both exercised.
struct Small {
  DenseMatrix x;
  Booster booster;
};
Small small_booster() {
  Small s;
  std::vector<float> y;
  std::vector<std::string> names;
  for (int f = 0; f < 6; ++f) names.push_back("f" + std::to_string(f));
  for (int r = 0; r < 400; ++r) {
    std::vector<float> row(6);
    for (int f = 0; f < 6; ++f) row[f] = static_cast<float>((r * (f + 3) + f) % 7);
    y.push_back(static_cast<float>(std::sin(r * 0.1) + 0.3 * row[1] - 0.2 * row[0]));
    if (r % 5 == 0) row[r % 6] = std::nanf("");
    s.x.add_row(row);
  }
  BoosterParams p;
  p.rounds = 40;
  p.max_depth = 4;
  p.threads = 1;
  s.booster = Booster::train(s.x, y, names, p);
  return s;
}
}  // namespace

TEST_CASE("flattened trees equal XGBoost on a booster with missing values and threshold ties", "[trees]") {
  const Small s = small_booster();
  const TreeEnsemble trees = flatten_xgboost_ubj(s.booster.save_ubj(), "small.ubj");
  CHECK(trees.num_features() == 6);
  CHECK(trees.num_trees() == 40);
  CHECK(trees.predict(s.x) == s.booster.predict(s.x));
  const DenseMatrix missing = with_missing_values(s.x);
  CHECK(trees.predict(missing) == s.booster.predict(missing));
  DenseMatrix extremes;  // (XGBoost refuses infinities in its input)
  for (float v : {std::numeric_limits<float>::lowest(), std::numeric_limits<float>::max(), -0.0f, 3.0f})
    extremes.add_row(std::vector<float>(6, v));
  CHECK(trees.predict(extremes) == s.booster.predict(extremes));
  // The file round trip changes nothing.
  const TreeEnsemble again = TreeEnsemble::parse(trees.serialize(), "small.trees");
  CHECK(again.serialize() == trees.serialize());
  CHECK(again.predict(missing) == trees.predict(missing));
}

TEST_CASE("malformed flattened-tree files are refused with one line", "[trees]") {
  const std::string good = flatten_xgboost_ubj(small_booster().booster.save_ubj(), "small.ubj").serialize();
  auto patched = [&](std::size_t offset, std::uint32_t v) {
    std::string b = good;
    std::memcpy(&b[offset], &v, sizeof v);
    return b;
  };
  const std::size_t nodes_at = 32 + 4 * 40;  // header + 40 tree offsets
  const std::map<std::string, std::string> cases = {
      {"", "truncated header"},
      {good.substr(0, 31), "truncated header"},
      {"XXXXXXXX" + good.substr(8), "wrong magic"},
      {patched(8, 2), "version 2"},
      {good.substr(0, good.size() - 1), "truncated"},
      {good + "x", "trailing bytes"},
      {patched(20, 0xFFFFFFF0u), "truncated"},         // a node count that would wrap 32-bit sizes
      {patched(12, 0), "bad feature count"},
      {patched(28, 1), "unknown output transform"},
      {patched(32, 5), "bad node range"},              // first tree must start at node 0
      {patched(nodes_at, TreeEnsemble::kLeaf), "malformed leaf"},  // the root marked a leaf, children kept
      {patched(nodes_at + 8, 0), "malformed split"},   // the root's left child: itself (a cycle)
      {patched(nodes_at + 12, 1u << 30), "malformed split"},  // right child far outside the tree
      {patched(nodes_at, 6), "malformed split"},       // split on feature 6 of 6
  };
  for (const auto& [bytes, problem] : cases) {
    INFO(problem << " (" << bytes.size() << " bytes)");
    const std::string e = one_line_error(bytes);
    CHECK_THAT(e, Catch::Contains("x.trees") && Catch::Contains("not a valid flattened-tree file") &&
                      Catch::Contains(problem));
    CHECK(e.find('\n') == std::string::npos);
  }
  CHECK_THROWS_AS(flatten_xgboost_ubj("not ubj", "garbage.ubj"), InputError);
}

TEST_CASE("the shipped bundle's flattened trees equal its XGBoost boosters on every training row", "[trees][train][slow]") {
  // The trainer hands out each level's final training rows; the shipped bundle must have been fit
  // on exactly these (test_default_bundle checks the retrain), so both forms are compared on them.
  std::map<std::string, DenseMatrix> rows;
  TrainOptions o;
  o.data_dir = std::string(PTP_SOURCE_DIR) + "/datasets";
  o.config_dir = std::string(PTP_SOURCE_DIR) + "/configs";
  o.out_dir = ptp::test::temp_dir() + "/retrained";
  o.cross_validate = false;
  o.on_training_rows = [&](const std::string& level, const DenseMatrix& x) { rows[level] = x; };
  train_bundle(o);
  REQUIRE(rows.size() == 3);
  for (const auto& [level, x] : rows) {
    INFO(level << ": " << x.rows << " rows");
    REQUIRE(x.rows > 0);
    const Booster reference = Booster::load(ptp::test::slurp(kShipped + "/" + level + ".ubj"), level + ".ubj");
    const TreeEnsemble trees = TreeEnsemble::parse(ptp::test::slurp(kShipped + "/" + level + ".trees"), level + ".trees");
    const double on_rows = max_abs_difference(trees.predict(x), reference.predict(x));
    const DenseMatrix missing = with_missing_values(x);
    const double on_missing = max_abs_difference(trees.predict(missing), reference.predict(missing));
    INFO("max |log ratio difference|: " << on_rows << " on the training rows, " << on_missing << " with missing values");
    CHECK(on_rows <= 1e-6);
    CHECK(on_missing <= 1e-6);
    // Retraining writes the same trees as shipped (the boosters are deterministic for seed 7).
    CHECK(ptp::test::slurp(o.out_dir + "/" + level + ".trees") == ptp::test::slurp(kShipped + "/" + level + ".trees"));
  }
}
