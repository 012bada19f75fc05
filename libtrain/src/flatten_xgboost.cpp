// XGBoost's UBJ model -> TreeEnsemble, read with nlohmann's UBJSON parser (XGBoost's UBJ is
// standard UBJSON with typed arrays), so the bundle writer needs no XGBoost either. The layout is
// XGBoost 1.7's JSON model schema (doc/model.schema): learner.gradient_booster.model.trees[], each
// with left_children / right_children / split_indices / split_conditions / default_left, where a
// leaf's split_conditions entry is its (already learning-rate-scaled) leaf value.
#include "ptp/train/flatten_xgboost.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "ptp/vocab/error.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

namespace {
// Objectives whose prediction is the raw margin (XGBoost's PredTransform and ProbToMargin are the
// identity): for these, base_score is the starting margin as stored.
const std::set<std::string>& identity_objectives() {
  static const std::set<std::string> s{"reg:squarederror", "reg:pseudohubererror", "reg:absoluteerror",
                                       "reg:squaredlogerror"};
  return s;
}

// learner_model_param values are strings ("0E0"; XGBoost 2 writes "[5E-1]"). Parsed as float
// directly, as XGBoost does: a double rounded to float could differ in the last bit.
float number_in(const nlohmann::json& v) {
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (!s.empty() && s.front() == '[') s = s.substr(1, s.size() - 2);
  std::size_t used = 0;
  const float f = std::stof(s, &used);
  if (used != s.size()) throw std::invalid_argument(s);
  return f;
}
}  // namespace

TreeEnsemble flatten_xgboost_ubj(const std::string& ubj, const std::string& origin) {
  auto refuse = [&](const std::string& problem) {
    throw InputError(origin, 0, 0, "", "cannot flatten the XGBoost model: " + problem);
  };
  std::uint32_t num_features = 0;
  float base_margin = 0;
  std::vector<std::uint32_t> first_node;
  std::vector<TreeEnsemble::Node> nodes;
  try {
    const auto j = nlohmann::json::from_ubjson(ubj);
    const auto& learner = j.at("learner");
    const auto& gb = learner.at("gradient_booster");
    if (gb.at("name") != "gbtree") refuse("booster '" + gb.at("name").dump() + "' is not gbtree");
    const std::string objective = learner.at("objective").at("name").get<std::string>();
    if (!identity_objectives().count(objective)) refuse("objective " + objective + " transforms its output");
    const auto& param = learner.at("learner_model_param");
    if (param.contains("num_target") && number_in(param["num_target"]) > 1) refuse("multi-output model");
    if (param.contains("num_class") && number_in(param["num_class"]) > 1) refuse("multi-class model");
    const float features = number_in(param.at("num_feature"));
    if (!(features >= 1 && features < 1e6f)) refuse("bad num_feature");
    num_features = static_cast<std::uint32_t>(features);
    base_margin = number_in(param.at("base_score"));
    const auto& model = gb.at("model");
    for (const auto& group : model.at("tree_info"))
      if (group.get<int>() != 0) refuse("trees of more than one output group");
    for (const auto& tree : model.at("trees")) {
      const auto& left = tree.at("left_children");
      const auto& right = tree.at("right_children");
      const auto& feature = tree.at("split_indices");
      const auto& value = tree.at("split_conditions");
      const auto& default_left = tree.at("default_left");
      const std::size_t n = left.size();
      if (right.size() != n || feature.size() != n || value.size() != n || default_left.size() != n || n == 0)
        refuse("tree arrays of different lengths");
      if (tree.contains("split_type"))
        for (const auto& t : tree["split_type"])
          if (t.get<int>() != 0) refuse("categorical splits");
      const auto first = static_cast<std::uint32_t>(nodes.size());
      first_node.push_back(first);
      for (std::size_t i = 0; i < n; ++i) {
        TreeEnsemble::Node node;
        node.value = static_cast<float>(value[i].get<double>());  // float32 in the UBJ: exact
        const int l = left[i].get<int>();
        if (l != -1) {
          const bool dl = default_left[i].is_boolean() ? default_left[i].get<bool>() : default_left[i].get<int>() != 0;
          const auto f = feature[i].get<std::uint32_t>();
          if (f >= num_features) refuse("split on feature " + std::to_string(f) + " of " + std::to_string(num_features));
          node.feature = f | (dl ? TreeEnsemble::kDefaultLeft : 0u);
          node.left = static_cast<std::int32_t>(first + static_cast<std::uint32_t>(l));
          node.right = static_cast<std::int32_t>(first + right[i].get<std::uint32_t>());
        }
        nodes.push_back(node);
      }
    }
  } catch (const nlohmann::json::exception& ex) {
    refuse(std::string("not a valid XGBoost model: ") + ex.what());
  } catch (const std::invalid_argument&) {
    refuse("not a valid XGBoost model: a number in learner_model_param does not parse");
  } catch (const std::out_of_range&) {
    refuse("not a valid XGBoost model: a number in learner_model_param is out of range");
  }
  // The same checks the reader makes: what is written here always loads.
  return TreeEnsemble::parse(TreeEnsemble::encode(num_features, base_margin, first_node, nodes), origin);
}

}  // namespace ptp::train
