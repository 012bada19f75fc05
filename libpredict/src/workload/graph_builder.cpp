#include <cmath>

#include "ptp/predict/workload.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

const char* op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::gemm: return "gemm";
    case OpKind::attention_bmm: return "attention_bmm";
    case OpKind::fused_attention: return "fused_attention";
    case OpKind::conv: return "conv";
    case OpKind::norm: return "norm";
    case OpKind::softmax: return "softmax";
    case OpKind::elementwise: return "elementwise";
    case OpKind::embedding: return "embedding";
    case OpKind::pooling: return "pooling";
    case OpKind::rnn: return "rnn";
    case OpKind::loss: return "loss";
  }
  return "?";
}

const char* tp_role_name(TpRole r) {
  switch (r) {
    case TpRole::replicated: return "replicated";
    case TpRole::column: return "column";
    case TpRole::row: return "row";
    case TpRole::split: return "split";
    case TpRole::vocab: return "vocab";
  }
  return "?";
}

const char* expert_split_name(ExpertSplit e) {
  switch (e) {
    case ExpertSplit::none: return "none";
    case ExpertSplit::routed: return "routed";
    case ExpertSplit::n: return "n";
    case ExpertSplit::k: return "k";
  }
  return "?";
}

std::size_t GraphBuilder::op_count() const { return w_.ops.size(); }

void GraphBuilder::share_weights_since(std::size_t first) {
  for (std::size_t i = first; i < w_.ops.size(); ++i) w_.ops[i].params = 0;
}

double Workload::params() const {
  double s = 0;
  for (const auto& o : ops) s += o.params;
  return s;
}
double Workload::fwd_flops() const {
  double s = 0;
  for (const auto& o : ops) s += o.fwd_flops;
  return s;
}
double Workload::bwd_flops() const {
  double s = 0;
  for (const auto& o : ops) s += o.bwd_flops;
  return s;
}
double Workload::saved_elements() const {
  double s = 0;
  for (const auto& o : ops) s += o.saved;
  return s;
}

Op& GraphBuilder::add(Op op) {
  if (w_.ops.size() >= kMaxOps)
    throw InputError("model expands to more than " + std::to_string(kMaxOps) + " ops; refusing (absurd graph)");
  for (double v : {op.m, op.n, op.k, op.batch, op.fwd_flops, op.bwd_flops, op.elements_in, op.elements_out,
                   op.params, op.saved, op.repeats}) {
    if (!std::isfinite(v) || v < 0) throw InputError("op '" + op.name + "' has a non-finite or negative size");
  }
  op.in_block = !prefix_.empty();
  op.name = prefix_.empty() ? op.name : prefix_ + "." + op.name;
  // Defaults every family shares: heads are divided over TP ranks, and the cross entropy is
  // vocabulary-parallel. Anything else is replicated unless its family says otherwise.
  switch (op.kind) {
    case OpKind::attention_bmm:
    case OpKind::fused_attention:
    case OpKind::softmax:
      op.tp_role = TpRole::split;
      op.on_scores = true;
      break;
    case OpKind::loss:
      op.tp_role = TpRole::vocab;
      break;
    case OpKind::gemm:
    case OpKind::conv:
    case OpKind::norm:
    case OpKind::elementwise:
    case OpKind::embedding:
    case OpKind::pooling:
    case OpKind::rnn:
      break;
  }
  op.layer = layer_;
  w_.layers = std::max(w_.layers, layer_ + 1);
  w_.ops.push_back(std::move(op));
  return w_.ops.back();
}

Op& GraphBuilder::linear(const std::string& name, double rows, double in, double out, bool bias, bool input_grad,
                          bool shared_weight) {
  Op o;
  o.name = name;
  o.kind = OpKind::gemm;
  o.m = rows, o.n = out, o.k = in;
  o.fwd_flops = 2 * rows * in * out;
  // dgrad + wgrad; the first layer on raw inputs skips dgrad
  o.bwd_flops = o.fwd_flops * (input_grad ? 2 : 1);
  o.elements_in = rows * in;
  o.elements_out = rows * out;
  o.params = shared_weight ? 0 : in * out + (bias ? out : 0);
  o.saved = rows * in;
  o.input_grad = input_grad;
  o.uses_gemm_math = true;
  return add(o);
}

Op& GraphBuilder::bmm(const std::string& name, double batch, double m, double n, double k) {
  Op o;
  o.name = name;
  o.kind = OpKind::attention_bmm;
  o.m = m, o.n = n, o.k = k, o.batch = batch;
  o.fwd_flops = 2 * batch * m * n * k;
  o.bwd_flops = 2 * o.fwd_flops;
  o.elements_in = batch * (m * k + k * n);
  o.elements_out = batch * m * n;
  o.saved = o.elements_in;
  o.uses_gemm_math = true;
  return add(o);
}

Op& GraphBuilder::fused_attention(const std::string& name, double batch_heads, double q_len, double kv_len,
                                  double head_dim, bool causal, double window) {
  Op o;
  o.name = name;
  o.kind = OpKind::fused_attention;
  o.m = q_len, o.n = kv_len, o.k = head_dim, o.batch = batch_heads;
  double frac = causal ? 0.5 : 1.0;
  // Causal window W over L keys: query i sees min(i + 1, W) keys, on average W - W^2 / (2 L).
  if (causal && window > 0 && window < kv_len) frac = (window - window * window / (2 * kv_len)) / kv_len;
  o.fwd_flops = 4 * batch_heads * q_len * kv_len * head_dim * frac;
  // FlashAttention backward recomputes the scores: 2.5x forward
  o.bwd_flops = 2.5 * o.fwd_flops;
  o.elements_in = batch_heads * head_dim * (q_len + 2 * kv_len);
  o.elements_out = batch_heads * q_len * head_dim;
  o.saved = o.elements_in + o.elements_out;
  o.uses_gemm_math = true;
  return add(o);
}

GraphBuilder::Spatial GraphBuilder::conv2d(const std::string& name, double batch, double cin, Spatial in, double cout,
                                           double kernel, double stride, double groups, bool bias, bool input_grad) {
  if (stride < 1 || kernel < 1 || groups < 1) throw InputError("conv '" + name + "': kernel, stride, groups must be >= 1");
  Spatial out{std::ceil(in.h / stride), std::ceil(in.w / stride)};
  Op o;
  o.name = name;
  o.kind = OpKind::conv;
  o.m = batch * out.h * out.w;
  o.n = cout / groups;
  o.k = cin / groups * kernel * kernel;
  o.batch = groups;
  o.fwd_flops = 2 * o.m * o.n * o.k * groups;
  o.bwd_flops = o.fwd_flops * (input_grad ? 2 : 1);
  o.elements_in = batch * cin * in.h * in.w;
  o.elements_out = batch * cout * out.h * out.w;
  o.params = cout * (cin / groups) * kernel * kernel + (bias ? cout : 0);
  o.saved = o.elements_in;
  o.input_grad = input_grad;
  o.uses_gemm_math = true;
  add(o);
  return out;
}

double GraphBuilder::conv1d(const std::string& name, double batch, double cin, double length, double cout,
                            double kernel, double stride, double dilation, bool bias) {
  (void)dilation;
  double out_len = std::ceil(length / std::max(1.0, stride));
  Op o;
  o.name = name;
  o.kind = OpKind::conv;
  o.m = batch * out_len, o.n = cout, o.k = cin * kernel;
  o.fwd_flops = 2 * o.m * o.n * o.k;
  o.bwd_flops = 2 * o.fwd_flops;
  o.elements_in = batch * cin * length;
  o.elements_out = batch * cout * out_len;
  o.params = cout * cin * kernel + (bias ? cout : 0);
  o.saved = o.elements_in;
  o.uses_gemm_math = true;
  add(o);
  return out_len;
}

Op& GraphBuilder::norm(const std::string& name, double elements, double channels) {
  Op o;
  o.name = name;
  o.kind = OpKind::norm;
  o.fwd_flops = 8 * elements;
  o.bwd_flops = 16 * elements;
  o.elements_in = elements;
  o.elements_out = elements;
  o.params = 2 * channels;
  o.saved = elements;
  return add(o);
}

void GraphBuilder::batch_norm(const std::string& name, double elements, double channels) {
  norm(name, elements, channels);
  w_.ops.back().batch_norm = true;
}

Op& GraphBuilder::softmax(const std::string& name, double elements) {
  Op o;
  o.name = name;
  o.kind = OpKind::softmax;
  o.fwd_flops = 5 * elements;
  o.bwd_flops = 8 * elements;
  o.elements_in = elements;
  o.elements_out = elements;
  o.saved = elements;
  return add(o);
}

Op& GraphBuilder::elementwise(const std::string& name, double elements, double inputs, double flops_per_element) {
  Op o;
  o.name = name;
  o.kind = OpKind::elementwise;
  o.fwd_flops = flops_per_element * elements;
  o.bwd_flops = 2 * o.fwd_flops;
  o.elements_in = elements * inputs;
  o.elements_out = elements;
  o.saved = flops_per_element > 1 ? elements : 0;  // nonlinear ops keep their input
  return add(o);
}

Op& GraphBuilder::embedding(const std::string& name, double lookups, double dim, double table_rows,
                             double table_params, bool sparse_update) {
  Op o;
  o.name = name;
  o.kind = OpKind::embedding;
  o.m = lookups, o.n = dim, o.k = table_rows;
  o.elements_in = lookups * dim;
  o.elements_out = lookups * dim;
  o.params = table_params >= 0 ? table_params : table_rows * dim;
  o.input_grad = false;
  o.sparse_update = sparse_update;
  return add(o);
}

void GraphBuilder::pooling(const std::string& name, double elements_in, double elements_out) {
  Op o;
  o.name = name;
  o.kind = OpKind::pooling;
  o.fwd_flops = elements_in;
  o.bwd_flops = elements_in;
  o.elements_in = elements_in;
  o.elements_out = elements_out;
  o.saved = elements_in;
  add(o);
}

void GraphBuilder::rnn(const std::string& name, double batch, double steps, double in, double hidden, double gates,
                       bool bidirectional) {
  const double dirs = bidirectional ? 2 : 1;
  Op o;
  o.name = name;
  o.kind = OpKind::rnn;
  o.m = batch, o.n = gates * hidden, o.k = in + hidden;
  o.batch = dirs;
  o.repeats = steps;
  o.fwd_flops = 2 * batch * gates * hidden * (in + hidden) * steps * dirs + 10 * batch * hidden * steps * dirs;
  o.bwd_flops = 2 * o.fwd_flops;
  o.elements_in = batch * steps * in;
  o.elements_out = batch * steps * hidden * dirs;
  o.params = dirs * gates * hidden * (in + hidden + 2);
  o.saved = batch * steps * dirs * (in + (gates + 2) * hidden);
  o.uses_gemm_math = true;
  add(o);
}

void GraphBuilder::loss(const std::string& name, double rows, double classes) {
  Op o;
  o.name = name;
  o.kind = OpKind::loss;
  o.fwd_flops = 4 * rows * classes;
  o.bwd_flops = 2 * rows * classes;
  o.elements_in = rows * classes;
  o.elements_out = rows;
  o.saved = rows * classes;
  add(o);
}

}  // namespace ptp::predict
