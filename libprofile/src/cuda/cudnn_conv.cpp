#include "cudnn_conv.hpp"

#include <cudnn.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ptp/profile/detail/cuda_choices.hpp"
#include "ptp/profile/detail/cuda_work.hpp"
#include "cuda_dtypes.hpp"
#include "cuda_measure.hpp"
#include "fill.hpp"
#include "ptp/vocab/error.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

namespace {

void check(cudnnStatus_t s, const char* what) {
  if (s == CUDNN_STATUS_SUCCESS) return;
  const std::string msg = std::string(what) + ": " + cudnnGetErrorString(s);
  if (s == CUDNN_STATUS_NOT_SUPPORTED || s == CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH)
    throw PointFailure(PointStatus::unsupported, msg);
  if (s == CUDNN_STATUS_ALLOC_FAILED) throw PointFailure(PointStatus::failed, "out of memory: " + msg);
  throw std::runtime_error(msg);
}

// RAII backend descriptor with typed attribute setters.
class Desc {
 public:
  explicit Desc(cudnnBackendDescriptorType_t t) { check(cudnnBackendCreateDescriptor(t, &d_), "cudnnBackendCreateDescriptor"); }
  ~Desc() {
    if (d_) cudnnBackendDestroyDescriptor(d_);
  }
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  template <typename T>
  Desc& set(cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t, const T* v, int64_t n = 1) {
    check(cudnnBackendSetAttribute(d_, a, t, n, v), "cudnnBackendSetAttribute");
    return *this;
  }
  Desc& finalize() {
    check(cudnnBackendFinalize(d_), "cudnnBackendFinalize");
    return *this;
  }
  cudnnBackendDescriptor_t get() const { return d_; }
  cudnnBackendDescriptor_t* ptr() { return &d_; }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
};

struct ConvShape {
  int64_t n, c, h, w, k, r, s, stride, pad;
  std::string dtype, layout;
  int64_t p() const { return (h + 2 * pad - r) / stride + 1; }
  int64_t q() const { return (w + 2 * pad - s) / stride + 1; }
};

ConvShape shape_of(const Point& p) {
  ConvShape s{p.integer("n"), p.integer("c"), p.integer("h"), p.integer("w"), p.integer("k"), p.integer("r"),
              p.integer("s"), p.integer("stride"), p.integer("pad"), p.text("dtype"), p.text("layout")};
  if (s.n < 1 || s.c < 1 || s.h < 1 || s.w < 1 || s.k < 1 || s.r < 1 || s.s < 1 || s.stride < 1 || s.pad < 0)
    throw InputError(p.id() + ": conv sizes must be >= 1 (pad >= 0)");
  if (s.p() < 1 || s.q() < 1) throw InputError(p.id() + ": filter larger than the padded input");
  if (s.layout != "nchw" && s.layout != "nhwc") throw InputError(p.id() + ": layout must be nchw or nhwc");
  if (is_fp8(s.dtype)) throw InputError(p.id() + ": conv dtype must be fp32, tf32, fp16 or bf16");
  cuda_dtype(s.dtype, p.id());
  return s;
}

// Dims are always NCHW-ordered for cuDNN; the layout only changes the strides.
std::array<int64_t, 4> strides(const std::array<int64_t, 4>& d, bool nhwc) {
  if (nhwc) return {d[1] * d[2] * d[3], 1, d[3] * d[1], d[1]};
  return {d[1] * d[2] * d[3], d[2] * d[3], d[3], 1};
}

void make_tensor(Desc& t, int64_t uid, const std::array<int64_t, 4>& dims, bool nhwc, cudnnDataType_t type) {
  const auto st = strides(dims, nhwc);
  const int64_t align = 16;
  t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &type)
      .set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims.data(), 4)
      .set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, st.data(), 4)
      .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid)
      .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &align)
      .finalize();
}

cudnnDataType_t cudnn_type(const std::string& d) {
  if (d == "fp16") return CUDNN_DATA_HALF;
  if (d == "bf16") return CUDNN_DATA_BFLOAT16;
  return CUDNN_DATA_FLOAT;
}

const char* op_name(ConvKind k) {
  return k == ConvKind::fwd ? "conv_fwd" : (k == ConvKind::bwd_data ? "conv_bwd_data" : "conv_bwd_filter");
}

class CudnnHandle {
 public:
  CudnnHandle() { check(cudnnCreate(&h_), "cudnnCreate"); }
  ~CudnnHandle() { cudnnDestroy(h_); }
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;
  cudnnHandle_t get() const { return h_; }

 private:
  cudnnHandle_t h_ = nullptr;
};

void set_convolution(Desc& conv, const ConvShape& s) {
  const cudnnDataType_t comp = CUDNN_DATA_FLOAT;
  const int64_t dims = 2, pad[2] = {s.pad, s.pad}, stride[2] = {s.stride, s.stride}, dil[2] = {1, 1};
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  conv.set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, &dims)
      .set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &comp)
      .set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, &mode)
      .set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, pad, 2)
      .set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, pad, 2)
      .set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, stride, 2)
      .set(CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, dil, 2)
      .finalize();
}

cudnnBackendDescriptorType_t operation_type(ConvKind kind) {
  switch (kind) {
    case ConvKind::fwd: return CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR;
    case ConvKind::bwd_data: return CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR;
    case ConvKind::bwd_filter: return CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR;
  }
  return CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR;
}

// The pass's operands: x (or dx), w (or dw), y (or dy), with alpha = 1, beta = 0.
void set_operation(Desc& op, ConvKind kind, cudnnBackendDescriptor_t xd, cudnnBackendDescriptor_t wd,
                   cudnnBackendDescriptor_t yd, cudnnBackendDescriptor_t cd) {
  const float alpha = 1, beta = 0;
  if (kind == ConvKind::fwd) {
    op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, &xd)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, &wd)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, &yd)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &cd)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, &alpha)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, &beta);
  } else if (kind == ConvKind::bwd_data) {
    op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, CUDNN_TYPE_BACKEND_DESCRIPTOR, &xd)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, &wd)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, CUDNN_TYPE_BACKEND_DESCRIPTOR, &yd)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &cd)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_TYPE_FLOAT, &alpha)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, CUDNN_TYPE_FLOAT, &beta);
  } else {
    op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, &xd)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, CUDNN_TYPE_BACKEND_DESCRIPTOR, &wd)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, CUDNN_TYPE_BACKEND_DESCRIPTOR, &yd)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &cd)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_TYPE_FLOAT, &alpha)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, CUDNN_TYPE_FLOAT, &beta);
  }
  op.finalize();
}

// The engine configs one heuristics mode offers (none when the mode does not finalize).
std::vector<std::unique_ptr<Desc>> engine_configs(cudnnBackendDescriptor_t graph, cudnnBackendHeurMode_t hmode) {
  std::vector<std::unique_ptr<Desc>> cfgs;
  Desc heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  heur.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, &graph)
      .set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &hmode);
  if (cudnnBackendFinalize(heur.get()) != CUDNN_STATUS_SUCCESS) return cfgs;
  int64_t count = 0;
  if (cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                               nullptr) != CUDNN_STATUS_SUCCESS ||
      count <= 0)
    return cfgs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int64_t i = 0; i < count; ++i) {
    cfgs.push_back(std::make_unique<Desc>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    raw.push_back(cfgs.back()->get());
  }
  int64_t returned = 0;
  check(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                                 &returned, raw.data()),
        "cudnnBackendGetAttribute(ENGINEHEUR_RESULTS)");
  cfgs.resize(static_cast<std::size_t>(std::max<int64_t>(0, std::min(returned, count))));
  return cfgs;
}

// An engine config's numerical notes and its engine's global index (-1 when unknown).
std::pair<cuda_choices::EngineNotes, int64_t> engine_notes(cudnnBackendDescriptor_t config) {
  Desc engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  int64_t got = 0, index = -1, nn = 0;
  cudnnBackendNumericalNote_t nv[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  cuda_choices::EngineNotes n;
  if (cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got,
                               engine.ptr()) == CUDNN_STATUS_SUCCESS) {
    cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &got, &index);
    if (cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                 CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &nn, nv) == CUDNN_STATUS_SUCCESS)
      for (int64_t j = 0; j < nn && j < CUDNN_NUMERICAL_NOTE_TYPE_COUNT; ++j) {
        n.tensor_core |= nv[j] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE;
        n.down_convert |= nv[j] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS;
      }
  }
  return {n, index};
}

// The convolution's data: device pointers and the tensors' unique ids, in variant-pack order.
struct ConvData {
  void* ptrs[3];
  int64_t uids[3] = {'x', 'w', 'y'};
};

// A finalized plan that has executed once, with its variant pack and workspace, and how the engines
// were chosen.
struct ConvPlan {
  std::unique_ptr<Desc> plan, pack;
  DeviceBuffer workspace;
  int64_t engine = -1;
  std::size_t offered = 0, filtered = 0, tried = 0;
  std::string last_error;
};

// Finalizes `config` into a plan and runs it once; throws when either fails.
void try_engine_config(cudnnHandle_t handle, cudaStream_t stream, cudnnBackendDescriptor_t config, const ConvData& data,
                       ConvPlan& out) {
  auto pl = std::make_unique<Desc>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  pl->set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, &handle)
      .set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, &config)
      .finalize();
  int64_t workspace_size = 0;
  check(cudnnBackendGetAttribute(pl->get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, nullptr,
                                 &workspace_size),
        "cudnnBackendGetAttribute(WORKSPACE_SIZE)");
  DeviceBuffer w(static_cast<std::size_t>(workspace_size));
  void* wsp = w.get();
  auto pk = std::make_unique<Desc>(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  pk->set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, data.ptrs, 3)
      .set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, data.uids, 3)
      .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &wsp)
      .finalize();
  check(cudnnBackendExecute(handle, pl->get(), pk->get()), "cudnnBackendExecute");
  PTP_CUDA_CHECK(cudaStreamSynchronize(stream));
  out.plan = std::move(pl);
  out.pack = std::move(pk);
  out.workspace = std::move(w);
}

// Engine configs from heuristics mode A, then the fallback list; keep those whose numerical notes
// match the math mode (FP32 must not run on tensor cores, TF32 must), and take the first that
// finalizes and executes. No plan: PointFailure (unsupported when none was even tried).
ConvPlan first_running_plan(cudnnHandle_t handle, cudaStream_t stream, cudnnBackendDescriptor_t graph,
                            const std::string& math, const ConvData& data) {
  ConvPlan out;
  for (const cudnnBackendHeurMode_t hmode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    const std::vector<std::unique_ptr<Desc>> cfgs = engine_configs(graph, hmode);
    std::vector<cuda_choices::EngineNotes> notes;
    std::vector<int64_t> global;
    for (const auto& cfg : cfgs) {
      const auto [n, index] = engine_notes(cfg->get());
      notes.push_back(n);
      global.push_back(index);
    }
    out.offered += notes.size();
    const std::vector<std::size_t> order = cuda_choices::engines_to_try(notes, math);
    out.filtered += notes.size() - order.size();
    for (const std::size_t i : order) {
      ++out.tried;
      try {
        try_engine_config(handle, stream, cfgs[i]->get(), data, out);
        out.engine = global[i];
        return out;
      } catch (const std::exception& e) {
        out.last_error = e.what();
      }
    }
  }
  std::string why = "no cuDNN engine config for " + math + " math ran (" + std::to_string(out.offered) + " offered, " +
                    std::to_string(out.filtered) + " filtered by numerical notes, " + std::to_string(out.tried) + " tried)";
  if (!out.last_error.empty()) why += "; last error: " + out.last_error;
  throw PointFailure(out.tried == 0 ? PointStatus::unsupported : PointStatus::failed, why);
}

}  // namespace

// The axes and the Work are CPU code shared with plan-only builds (cuda_work.cpp).
std::vector<AxisSpec> conv_axes() { return cuda_work::spec("cudnn_conv_fwd").axes(); }

Work describe_conv(const Point& p, ConvKind kind) {
  Work w = cuda_work::spec(std::string("cudnn_") + op_name(kind)).describe(p);
  shape_of(p);  // and what this build's toolkit has
  return w;
}

void run_conv(const Point& p, Measurement& meas, ConvKind kind) {
  const ConvShape s = shape_of(p);
  require_sm(cuda_dtype(s.dtype, p.id()).min_sm, s.dtype + " convolution");
  const bool nhwc = s.layout == "nhwc";
  const cudnnDataType_t io = cudnn_type(s.dtype);
  const CudnnHandle cudnn;
  cudnnHandle_t handle = cudnn.get();
  Stream stream;
  check(cudnnSetStream(handle, stream.get()), "cudnnSetStream");

  Desc x(CUDNN_BACKEND_TENSOR_DESCRIPTOR), wt(CUDNN_BACKEND_TENSOR_DESCRIPTOR), y(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  make_tensor(x, 'x', {s.n, s.c, s.h, s.w}, nhwc, io);
  make_tensor(wt, 'w', {s.k, s.c, s.r, s.s}, nhwc, io);
  make_tensor(y, 'y', {s.n, s.k, s.p(), s.q()}, nhwc, io);
  Desc conv(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  set_convolution(conv, s);
  Desc op(operation_type(kind));
  set_operation(op, kind, x.get(), wt.get(), y.get(), conv.get());

  const cudnnBackendDescriptor_t opd = op.get();
  Desc graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, &opd)
      .set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &handle)
      .finalize();

  const std::size_t eb = static_cast<std::size_t>(cuda_dtype(s.dtype, p.id()).bytes);
  const std::size_t nx = static_cast<std::size_t>(s.n * s.c * s.h * s.w), nw = static_cast<std::size_t>(s.k * s.c * s.r * s.s),
                    ny = static_cast<std::size_t>(s.n * s.k * s.p() * s.q());
  DeviceBuffer xb(eb * nx), wb(eb * nw), yb(eb * ny);
  fill_uniform(xb.get(), nx, s.dtype, 1);  // random data: zeros would hide power-limited clocks
  fill_uniform(wb.get(), nw, s.dtype, 2);
  fill_uniform(yb.get(), ny, s.dtype, 3);  // dy of the backward passes
  const ConvData data{{xb.get(), wb.get(), yb.get()}};

  const std::string math = cuda_choices::conv_precision(s.dtype).math;
  const ConvPlan chosen = first_running_plan(handle, stream.get(), graph.get(), math, data);
  meas.set("notes", cuda_choices::conv_precision(s.dtype).notes + "; engine=" + std::to_string(chosen.engine) +
                        " (config " + std::to_string(chosen.tried) + " tried of " +
                        std::to_string(chosen.offered - chosen.filtered) + ")");
  measure_cuda(meas, stream.get(),
               [&] { check(cudnnBackendExecute(handle, chosen.plan->get(), chosen.pack->get()), "cudnnBackendExecute"); });
}

}  // namespace ptp::profile::cuda
