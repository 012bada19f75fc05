#include "ptp/profile/detail/cuda_work.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "ptp/profile/detail/cuda_choices.hpp"
#include "ptp/profile/busbw.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda_work {

int dtype_bytes(const std::string& dtype, const std::string& where) {
  if (dtype == "fp32" || dtype == "tf32") return 4;
  if (dtype == "fp16" || dtype == "bf16") return 2;
  if (dtype == "fp8_e4m3" || dtype == "fp8_e5m2") return 1;
  throw InputError(where + ": dtype must be fp32, tf32, fp16, bf16, fp8_e4m3 or fp8_e5m2, got '" + dtype + "'");
}

namespace {

// ---- cuBLASLt GEMM and strided-batched GEMM ----------------------------------------------------

std::vector<AxisSpec> gemm_axes(bool batched) {
  std::vector<AxisSpec> a = {{"m", "", "rows of D"},
                             {"n", "", "columns of D"},
                             {"k", "", "reduction length"},
                             {"dtype", "", "fp32 | tf32 | fp16 | bf16 | fp8_e4m3 | fp8_e5m2"},
                             {"accum", "fp32", "accumulator: fp32, or fp16 for dtype fp16"},
                             {"pass", "fwd", "fwd | dgrad | wgrad (FP8: fwd uses fast accumulation, as Transformer Engine)"}};
  if (batched) a.push_back({"batch", "", "strided batch count (attention: batch x heads)"});
  return a;
}

Work describe_gemm(const Point& p, bool batched) {
  const std::int64_t im = p.integer("m"), in_ = p.integer("n"), ik = p.integer("k"), ib = batched ? p.integer("batch") : 1;
  if (im < 1 || in_ < 1 || ik < 1 || ib < 1) throw InputError(p.id() + ": m, n, k, batch must be >= 1");
  const std::string& dtype = p.text("dtype");
  const double in = dtype_bytes(dtype, p.id());  // FP8: both operands are 1 byte
  cuda_choices::GemmPrecision prec;
  try {
    prec = cuda_choices::gemm_precision(dtype, p.text("accum"), p.text("pass"));
  } catch (const InputError& e) {
    throw InputError(p.id() + ": " + e.what());
  }
  const double m = static_cast<double>(im), n = static_cast<double>(in_), k = static_cast<double>(ik),
               b = static_cast<double>(ib);
  Work w;
  w.flops = 2 * m * n * k * b;
  w.bytes = b * (in * (m * k + k * n) + dtype_bytes(prec.out, p.id()) * m * n);
  w.math = prec.math;
  w.setup_s = 0.02;  // heuristic query + workspace
  w.fields = {{"op_class", batched ? "batched_gemm" : "gemm"},
              {"op_name", batched ? "cublasLtMatmul_strided_batched" : "cublasLtMatmul"},
              {"m", p.text("m")},
              {"n", p.text("n")},
              {"k", p.text("k")},
              {"batch", format_number(b)},
              {"dtype_in", dtype},
              {"dtype_compute", prec.math},  // the math mode ptp-train reads; accumulator in notes
              {"dtype_out", prec.out},
              {"flops", format_number(w.flops)},
              {"bytes", format_number(w.bytes)},
              {"notes", prec.notes}};
  return w;
}

// ---- cuDNN convolutions ------------------------------------------------------------------------

enum class ConvKind { fwd, bwd_data, bwd_filter };

const char* conv_name(ConvKind k) {
  return k == ConvKind::fwd ? "conv_fwd" : (k == ConvKind::bwd_data ? "conv_bwd_data" : "conv_bwd_filter");
}

std::vector<AxisSpec> conv_axes() {
  return {{"n", "", "batch"},          {"c", "", "input channels"},  {"h", "", "input height"},
          {"w", "", "input width"},    {"k", "", "output channels"}, {"r", "3", "filter height"},
          {"s", "3", "filter width"},  {"stride", "1", "stride"},    {"pad", "1", "zero padding"},
          {"dtype", "", "fp32 | tf32 | fp16 | bf16"}, {"layout", "nhwc", "nchw | nhwc"}};
}

Work describe_conv(const Point& p, ConvKind kind) {
  const std::int64_t n = p.integer("n"), c = p.integer("c"), h = p.integer("h"), wd = p.integer("w"),
                     k = p.integer("k"), r = p.integer("r"), s = p.integer("s"), stride = p.integer("stride"),
                     pad = p.integer("pad");
  const std::string& dtype = p.text("dtype");
  const std::string& layout = p.text("layout");
  if (n < 1 || c < 1 || h < 1 || wd < 1 || k < 1 || r < 1 || s < 1 || stride < 1 || pad < 0)
    throw InputError(p.id() + ": conv sizes must be >= 1 (pad >= 0)");
  const std::int64_t op = (h + 2 * pad - r) / stride + 1, oq = (wd + 2 * pad - s) / stride + 1;
  if (op < 1 || oq < 1) throw InputError(p.id() + ": filter larger than the padded input");
  if (layout != "nchw" && layout != "nhwc") throw InputError(p.id() + ": layout must be nchw or nhwc");
  if (cuda_choices::is_fp8_name(dtype)) throw InputError(p.id() + ": conv dtype must be fp32, tf32, fp16 or bf16");
  const double eb = dtype_bytes(dtype, p.id());
  const double out = static_cast<double>(n * k * op * oq);
  const double flops = 2 * out * static_cast<double>(c * r * s);  // same MACs in all three passes
  const double bytes = eb * static_cast<double>(n * c * h * wd + k * c * r * s) + eb * out;
  const cuda_choices::ConvPrecision prec = cuda_choices::conv_precision(dtype);
  Work w;
  w.flops = flops;
  w.bytes = bytes;
  w.math = dtype;
  w.setup_s = 0.1;  // heuristics + plan finalisation
  w.fields = {{"op_class", conv_name(kind)},
              {"op_name", std::string("cudnn_") + conv_name(kind)},
              {"m", format_number(static_cast<double>(n * op * oq))},  // implicit-GEMM view
              {"n", p.text("k")},
              {"k", format_number(static_cast<double>(c * r * s))},
              {"batch", p.text("n")},
              {"shape", "n" + p.text("n") + "c" + p.text("c") + "h" + p.text("h") + "w" + p.text("w") + "k" + p.text("k") +
                            "r" + p.text("r") + "s" + p.text("s") + "u" + p.text("stride") + "p" + p.text("pad") + "_" +
                            layout},
              {"dtype_in", dtype},
              {"dtype_compute", prec.math},  // math mode; accumulator in notes
              {"dtype_out", dtype},
              {"flops", format_number(flops)},
              {"bytes", format_number(bytes)},
              {"notes", prec.notes}};
  return w;
}

// ---- NCCL collectives --------------------------------------------------------------------------

std::vector<AxisSpec> collective_axes() {
  return {{"size_bytes", "", "largest buffer in bytes (nccl-tests size)"},
          {"dtype", "fp32", "fp32 | fp16 | bf16"},
          {"ranks", "", "GPUs taking part (processes x GPUs)"},
          {"in_place", "0", "1: recv buffer aliases send"},
          {"nodes", "1", "nodes the ranks span (multi-process launches; rows only)"}};
}

Work describe_collective(const Point& p, const std::string& collective) {
  const double size = static_cast<double>(p.integer("size_bytes"));
  const auto ranks = static_cast<int>(p.integer("ranks"));
  const std::string& dtype = p.text("dtype");
  if (dtype != "fp32" && dtype != "fp16" && dtype != "bf16")
    throw InputError(p.id() + ": collective dtype must be fp32, fp16 or bf16");
  const auto nodes = static_cast<int>(p.integer("nodes"));
  if (ranks < 1 || size < 1) throw InputError(p.id() + ": size_bytes and ranks must be >= 1");
  if (nodes < 1 || ranks % nodes != 0) throw InputError(p.id() + ": nodes must divide ranks");
  if (p.text("in_place") != "0" && p.text("in_place") != "1") throw InputError(p.id() + ": in_place must be 0 or 1");
  Work w;
  w.link_bytes = size * bus_factor(collective, ranks);
  w.gpus = ranks;
  w.setup_s = 0.2 + 0.05 * ranks;  // communicator creation dominates small points
  w.fields = {{"collective", collective},       {"size_bytes", p.text("size_bytes")}, {"dtype", dtype},
              {"ranks", p.text("ranks")},        {"nodes", p.text("nodes")}, {"ranks_per_node", std::to_string(ranks / nodes)},
              {"in_place", p.text("in_place")}};
  return w;
}

// ---- hand-written memory-bound kernels (fp32 math on fp32/fp16/bf16 storage) -------------------

int kernel_dtype_bytes(const std::string& dtype, const std::string& where) {
  if (dtype == "fp32") return 4;
  if (dtype == "fp16" || dtype == "bf16") return 2;
  throw InputError(where + ": dtype must be fp32, fp16 or bf16, got '" + dtype + "'");
}

Work memory_work(const char* op_class, const std::string& op_name, const std::string& shape, const std::string& dtype,
                 double flops, double bytes) {
  Work w;
  w.flops = flops;
  w.bytes = bytes;
  w.math = "fp32";
  w.fields = {{"op_class", op_class}, {"op_name", op_name},     {"shape", shape},
              {"dtype_in", dtype},    {"dtype_compute", "fp32"}, {"dtype_out", dtype},
              {"flops", format_number(flops)}, {"bytes", format_number(bytes)}};
  return w;
}

Work describe_elementwise(const Point& p) {
  const std::string& op = p.text("op");
  if (op != "add" && op != "mul" && op != "gelu" && op != "dropout")
    throw InputError(p.id() + ": op must be add, mul, gelu or dropout");
  const double n = static_cast<double>(p.integer("elements"));
  const int eb = kernel_dtype_bytes(p.text("dtype"), p.id());
  const int arrays = op == "add" || op == "mul" ? 3 : 2;
  const double flops = op == "gelu" ? 14 * n : (op == "dropout" ? 6 * n : n);
  return memory_work("elementwise", op, p.text("elements"), p.text("dtype"), flops, arrays * eb * n);
}

Work describe_amp_unscale(const Point& p) {
  const double n = static_cast<double>(p.integer("elements"));
  const int eb = kernel_dtype_bytes(p.text("dtype"), p.id());
  return memory_work("loss_scale", "unscale_inf_check", p.text("elements"), p.text("dtype"), 2 * n, 2 * eb * n);
}

Work describe_cast(const Point& p) {
  const double n = static_cast<double>(p.integer("elements"));
  const int a = kernel_dtype_bytes(p.text("from"), p.id()), b = kernel_dtype_bytes(p.text("to"), p.id());
  Work w = memory_work("cast", p.text("from") + "_to_" + p.text("to"), p.text("elements"), p.text("from"), 0, (a + b) * n);
  w.fields["dtype_out"] = p.text("to");
  return w;
}

Work describe_embedding(const Point& p) {
  const double t = static_cast<double>(p.integer("tokens")), d = static_cast<double>(p.integer("dim"));
  if (p.integer("vocab") < 1) throw InputError(p.id() + ": vocab must be >= 1");
  const int eb = kernel_dtype_bytes(p.text("dtype"), p.id());
  return memory_work("embedding", "gather", p.text("vocab") + "x" + p.text("dim") + ":" + p.text("tokens"),
                     p.text("dtype"), 0, 2 * eb * t * d + 4 * t);
}

Work describe_layernorm(const Point& p) {
  const double r = static_cast<double>(p.integer("rows")), c = static_cast<double>(p.integer("cols"));
  const int eb = kernel_dtype_bytes(p.text("dtype"), p.id());
  return memory_work("layernorm", "layernorm_fwd", p.text("rows") + "x" + p.text("cols"), p.text("dtype"), 8 * r * c,
                     2 * eb * r * c + 8 * c);
}

Work describe_softmax(const Point& p) {
  const double r = static_cast<double>(p.integer("rows")), c = static_cast<double>(p.integer("cols"));
  const int eb = kernel_dtype_bytes(p.text("dtype"), p.id());
  return memory_work("softmax", "softmax_fwd", p.text("rows") + "x" + p.text("cols"), p.text("dtype"), 5 * r * c,
                     2 * eb * r * c);
}

Work describe_reduction(const Point& p) {
  const double n = static_cast<double>(p.integer("elements"));
  const int eb = kernel_dtype_bytes(p.text("dtype"), p.id());
  return memory_work("reduction", "sum", p.text("elements"), p.text("dtype"), n, eb * n);
}

Work describe_optimizer(const Point& p) {
  const std::string& algo = p.text("algo");
  if (algo != "sgd_momentum" && algo != "adam" && algo != "adamw")
    throw InputError(p.id() + ": algo must be sgd_momentum, adam or adamw");
  const std::string& f = p.text("fused");
  if (f != "true" && f != "false") throw InputError(p.id() + ": fused must be true or false");
  const bool fused = f == "true";
  const double n = static_cast<double>(p.integer("params"));
  const int eb = kernel_dtype_bytes(p.text("dtype"), p.id());
  const int states = algo == "sgd_momentum" ? 1 : 2;
  // Fused: read grad + master + states, write master + states + params once.
  double bytes = n * (eb + 4 + 4 * states + 4 + 4 * states + eb);
  // Unfused, on top of that: every moment kernel after the first re-reads grad, the weight update
  // re-reads the states, AdamW's decay pass reads and writes master, and the copy pass re-reads
  // master. (Counting a grad re-read per moment kernel put the first H100 runs of the unfused
  // kernels at 3.2-3.4 TB/s, above HBM3's 3.35 TB/s peak; the fused kernels measured 3.0 TB/s.)
  if (!fused) bytes += n * ((states - 1) * eb + 4 * states + (algo == "adamw" ? 8 : 0) + 4);
  const double flops = n * (algo == "sgd_momentum" ? 4 : 14);
  Work w = memory_work("optimizer", algo + (fused ? "_fused" : "_unfused"), p.text("params"), p.text("dtype"), flops, bytes);
  w.fields["notes"] = "fp32 master weights";  // run() repeats it: measure_cuda appends to row notes
  return w;
}

const char* const kDtypes = "fp32 | fp16 | bf16";

const std::vector<Spec>& all_specs() {
  static const std::vector<Spec> s = [] {
    std::vector<Spec> v = {
        {"cublaslt_gemm", Table::ops, [] { return gemm_axes(false); }, [](const Point& p) { return describe_gemm(p, false); }},
        {"cublaslt_batched_gemm", Table::ops, [] { return gemm_axes(true); },
         [](const Point& p) { return describe_gemm(p, true); }},
        {"cudnn_conv_fwd", Table::ops, conv_axes, [](const Point& p) { return describe_conv(p, ConvKind::fwd); }},
        {"cudnn_conv_bwd_data", Table::ops, conv_axes, [](const Point& p) { return describe_conv(p, ConvKind::bwd_data); }},
        {"cudnn_conv_bwd_filter", Table::ops, conv_axes,
         [](const Point& p) { return describe_conv(p, ConvKind::bwd_filter); }},
        {"nccl_all_gather", Table::collectives, collective_axes,
         [](const Point& p) { return describe_collective(p, "all_gather"); }},
        {"nccl_all_reduce", Table::collectives, collective_axes,
         [](const Point& p) { return describe_collective(p, "all_reduce"); }},
        {"nccl_broadcast", Table::collectives, collective_axes,
         [](const Point& p) { return describe_collective(p, "broadcast"); }},
        {"nccl_reduce_scatter", Table::collectives, collective_axes,
         [](const Point& p) { return describe_collective(p, "reduce_scatter"); }},
        {"nccl_send_recv", Table::collectives, collective_axes,
         [](const Point& p) { return describe_collective(p, "send_recv"); }},
        {"cuda_amp_unscale", Table::ops,
         [] {
           return std::vector<AxisSpec>{{"elements", "", "gradient elements"},
                                        {"dtype", "", "gradient storage: fp32 | fp16 | bf16"}};
         },
         describe_amp_unscale},
        {"cuda_cast", Table::ops,
         [] {
           return std::vector<AxisSpec>{{"elements", "", "elements cast"}, {"from", "", kDtypes}, {"to", "", kDtypes}};
         },
         describe_cast},
        {"cuda_elementwise", Table::ops,
         [] {
           return std::vector<AxisSpec>{{"op", "", "add | mul | gelu | dropout"}, {"elements", "", "elements per tensor"},
                                        {"dtype", "", kDtypes}};
         },
         describe_elementwise},
        {"cuda_embedding", Table::ops,
         [] {
           return std::vector<AxisSpec>{{"vocab", "", "table rows"}, {"dim", "", "embedding width"},
                                        {"tokens", "", "lookups"}, {"dtype", "", kDtypes}};
         },
         describe_embedding},
        {"cuda_layernorm", Table::ops,
         [] {
           return std::vector<AxisSpec>{{"rows", "", "tokens (batch x sequence)"}, {"cols", "", "hidden size"},
                                        {"dtype", "", kDtypes}};
         },
         describe_layernorm},
        {"cuda_optimizer", Table::ops,
         [] {
           return std::vector<AxisSpec>{{"algo", "", "sgd_momentum | adam | adamw"},
                                        {"fused", "", "true | false"},
                                        {"params", "", "parameter count"},
                                        {"dtype", "", "param/grad storage: fp32 | fp16 | bf16 (master weights are fp32)"}};
         },
         describe_optimizer},
        {"cuda_reduction", Table::ops,
         [] { return std::vector<AxisSpec>{{"elements", "", "elements reduced"}, {"dtype", "", kDtypes}}; },
         describe_reduction},
        {"cuda_softmax", Table::ops,
         [] {
           return std::vector<AxisSpec>{{"rows", "", "rows (batch x heads x queries)"}, {"cols", "", "row length (keys)"},
                                        {"dtype", "", kDtypes}};
         },
         describe_softmax},
    };
    std::sort(v.begin(), v.end(), [](const Spec& a, const Spec& b) { return std::string(a.name) < b.name; });
    return v;
  }();
  return s;
}

// A CUDA benchmark in a build without the CUDA backend: it expands and plans, it does not run.
class PlanOnly final : public Microbenchmark {
 public:
  explicit PlanOnly(const Spec& s) : spec_(s) {}
  std::string name() const override { return spec_.name; }
  Backend backend() const override { return Backend::cuda; }
  Table table() const override { return spec_.table; }
  std::vector<AxisSpec> axes() const override { return spec_.axes(); }
  Work describe(const Point& p) const override { return spec_.describe(p); }
  void run(const Point&, Measurement&) const override {
    throw InputError("--backend cuda: this ptp-profile was built without CUDA; '" + name() + "' can only be planned");
  }

 private:
  const Spec& spec_;
};

}  // namespace

const std::vector<Spec>& specs() { return all_specs(); }

const Spec& spec(const std::string& name) {
  for (const auto& s : all_specs())
    if (name == s.name) return s;
  throw std::logic_error("cuda_work: no CUDA microbenchmark named " + name);
}

void register_plan_only(Registry& registry) {
  for (const auto& s : all_specs())
    if (!registry.find(s.name)) registry.add(std::make_unique<PlanOnly>(s));
}

}  // namespace ptp::profile::cuda_work
