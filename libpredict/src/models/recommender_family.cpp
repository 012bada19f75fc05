// Embedding-dominated recommenders: NCF/NeuMF (He et al. 2017) and DLRM (Naumov et al. 2019).
// One sample = one (user, item) pair or one click-log row. Their cost is embedding gathers and small
// MLP GEMMs; the parameter count is almost all embedding rows.
#include <cmath>
#include <numeric>

#include "ptp/predict/model_zoo.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

// Linear + ReLU stack; the last layer of a top MLP has no ReLU (its logit feeds the loss).
double mlp(GraphBuilder& g, const std::string& tag, double rows, double in, const std::vector<double>& sizes,
           bool relu_last) {
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::string name = tag + std::to_string(i);
    g.linear(name, rows, in, sizes[i], true, /*input_grad=*/!(tag == "bottom_mlp" && i == 0));
    if (i + 1 < sizes.size() || relu_last) g.elementwise(name + "_relu", rows * sizes[i], 1, 1);
    in = sizes[i];
  }
  return in;
}

void ncf(const YamlReader& p, const BuildContext& ctx, GraphBuilder& g) {
  p.check_keys({"kind", "users", "items", "factors", "mlp"});
  const double users = p.get_number("users", 1, 1e10);
  const double items = p.get_number("items", 1, 1e10);
  const double factors = p.get_number("factors", 1, 1e5);
  const auto layers = p.child("mlp").as_number_list(1, 1e6);
  if (layers.empty()) p.child("mlp").fail("expected at least one layer size");
  if (std::fmod(layers[0], 2) != 0) p.child("mlp").fail("the first size is the concatenated user+item embedding; must be even");
  const double B = ctx.batch;

  g.begin_layer();
  g.set_prefix("embed");
  g.embedding("gmf_user", B, factors, users);
  g.embedding("gmf_item", B, factors, items);
  g.embedding("mlp_user", B, layers[0] / 2, users);
  g.embedding("mlp_item", B, layers[0] / 2, items);
  g.begin_layer();
  g.set_prefix("gmf");
  g.elementwise("product", B * factors, 2, 1);
  g.begin_layer();
  g.set_prefix("mlp");
  const std::vector<double> hidden(layers.begin() + 1, layers.end());
  const double mlp_out = mlp(g, "mlp", B, layers[0], hidden, /*relu_last=*/true);
  g.begin_layer();
  g.set_prefix("neumf");
  g.linear("final", B, factors + mlp_out, 1, true);
  g.elementwise("sigmoid", B, 1, 4);
  g.loss("bce", B, 1);
  g.set_prefix("");
}

void dlrm(const YamlReader& p, const BuildContext& ctx, GraphBuilder& g) {
  p.check_keys({"kind", "dense_features", "sparse_updates", "bottom_mlp", "embedding_dim", "tables", "top_mlp", "interaction",
                "self_interaction"});
  const double dense = p.get_number("dense_features", 0, 1e5);
  const auto bottom = p.child("bottom_mlp").as_number_list(1, 1e6);
  const double dim = p.get_number("embedding_dim", 1, 1e5);
  const auto tables = p.child("tables").as_number_list(1, 1e11);
  const auto top = p.child("top_mlp").as_number_list(1, 1e6);
  const std::string interaction = p.get_string("interaction", "dot");
  if (interaction != "dot" && interaction != "cat") p.child("interaction").fail("expected dot | cat");
  const bool self_interaction = p.get_bool("self_interaction", false);
  if (bottom.empty() || bottom.back() != dim)
    p.child("bottom_mlp").fail("the last bottom MLP size must equal embedding_dim (it joins the interaction)");
  if (top.empty()) p.child("top_mlp").fail("expected at least one layer size");
  const double B = ctx.batch;

  g.begin_layer();
  g.set_prefix("bottom");
  mlp(g, "bottom_mlp", B, dense, bottom, /*relu_last=*/true);
  g.begin_layer();
  g.set_prefix("embed");
  // All tables are gathered by one fused kernel (as DLE's joint embedding does); rows summed.
  const double rows = std::accumulate(tables.begin(), tables.end(), 0.0);
  // DLE's DLRM updates the tables with sparse SGD: only looked-up rows are touched each step.
  const bool sparse = p.get_bool("sparse_updates", true);
  g.embedding("tables", B * static_cast<double>(tables.size()), dim, rows, -1, sparse);
  g.begin_layer();
  g.set_prefix("interaction");
  const double vectors = static_cast<double>(tables.size()) + 1;
  double top_in = 0;
  if (interaction == "dot") {
    g.bmm("dot", B, vectors, vectors, dim);
    const double pairs = self_interaction ? vectors * (vectors + 1) / 2 : vectors * (vectors - 1) / 2;
    top_in = dim + pairs;
    g.elementwise("gather_tril_concat", B * top_in, 1, 0);
  } else {
    top_in = vectors * dim;
    g.elementwise("concat", B * top_in, 1, 0);
  }
  g.begin_layer();
  g.set_prefix("top");
  const double out = mlp(g, "top_mlp", B, top_in, top, /*relu_last=*/false);
  g.elementwise("sigmoid", B * out, 1, 4);
  g.loss("bce", B, out);
  g.set_prefix("");
}

}  // namespace

void generate_recommender(const YamlReader& p, const BuildContext& ctx, GraphBuilder& g) {
  const std::string kind = p.get_string("kind");
  if (kind == "ncf") {
    ncf(p, ctx, g);
  } else if (kind == "dlrm") {
    dlrm(p, ctx, g);
  } else {
    p.child("kind").fail("expected ncf | dlrm");
  }
}

}  // namespace ptp::predict
