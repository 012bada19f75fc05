// Stack descriptors (overlap.*, cuda_graphs): each one moves only the term it names. Stating an
// overlap off exposes that communication fully, on hides it behind the compute beside it (at most
// stated_hidden_max of it); the pipeline bubble follows the stage time it is a share of.
#include <catch2/catch.hpp>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/job_spec.hpp"

using namespace ptp::predict;

namespace {
const Catalogs& catalogs() {
  static const Catalogs c(std::string(PTP_SOURCE_DIR) + "/configs");
  return c;
}

// Llama-3-8B on 16 H100: TP 4 + SP, PP 2 (interleaved), ZeRO-1 over DP 2, 8 micro-batches.
const std::string kLayered =
    "model: llama3-8b\nprecision: bf16\nbatch_size: 1\nseq_len: 8192\ngrad_accum: 8\nsharding: zero1\n"
    "sequence_parallel: true\nparallelism: {tensor: 4, pipeline: 2, virtual_pipeline: 2}\n"
    "cluster: {gpu: h100-sxm5-80gb, num_gpus: 16}\n";
// Qwen3-30B-A3B on 8 H100 with its experts over EP 8.
const std::string kExperts =
    "model: qwen3-30b-a3b\nprecision: bf16\nbatch_size: 1\nseq_len: 4096\nsharding: zero1\n"
    "parallelism: {expert: 8}\ncluster: {gpu: h100-sxm5-80gb, num_gpus: 8}\n";
// BERT-large data-parallel on 16 A100 (one bucketed all-reduce behind the backward).
const std::string kDataParallel =
    "model: bert-large\nprecision: amp_fp16\nbatch_size: 32\nseq_len: 512\n"
    "cluster: {gpu: a100-sxm4-80gb, num_gpus: 16, gpus_per_node: 8, inter_node: ib-hdr-200}\n";
// A launch-bound step: BERT-base, one sequence of 128 per GPU.
const std::string kLaunchBound =
    "model: bert-base\nprecision: amp_bf16\nbatch_size: 1\nseq_len: 128\ncluster: {gpu: h100-sxm5-80gb, num_gpus: 1}\n";

Prediction predict(const std::string& job, const std::string& extra = "") {
  return predict_analytical(resolve_job(parse_job_spec(YamlReader::load_string(job + extra, "job.yaml")), catalogs()));
}

double stage_work(const StepBreakdown& b) {
  return b.forward + b.backward + b.recompute + b.tp_communication + b.cp_communication + b.ep_communication +
         b.pp_communication;
}

// Every term of `b` but the one named (and the bubble, checked as a share of the stage) equals `a`'s.
void only_moves(const Prediction& a, const Prediction& b, double StepBreakdown::*term) {
  const auto& x = a.breakdown;
  const auto& y = b.breakdown;
  for (double StepBreakdown::*t : {&StepBreakdown::forward, &StepBreakdown::backward, &StepBreakdown::recompute,
                                   &StepBreakdown::optimizer, &StepBreakdown::loss_scaling,
                                   &StepBreakdown::precision_casts, &StepBreakdown::framework_overhead,
                                   &StepBreakdown::tp_communication, &StepBreakdown::cp_communication,
                                   &StepBreakdown::ep_communication, &StepBreakdown::pp_communication,
                                   &StepBreakdown::dp_communication}) {
    if (t == term) continue;
    CHECK(y.*t == Approx(x.*t).epsilon(1e-12).margin(1e-15));
  }
  // The collectives' own time stays; only a data-parallel reduction moved behind the backward no
  // longer shares the GPU with it (AnalyticalConstants::overlap_efficiency).
  if (term != &StepBreakdown::dp_communication) CHECK(y.communication == Approx(x.communication).epsilon(1e-12));
  if (x.pp_bubble > 0) CHECK(y.pp_bubble / stage_work(y) == Approx(x.pp_bubble / stage_work(x)).epsilon(1e-9));
  else CHECK(y.pp_bubble == 0);
  CHECK(b.memory.allocated_bytes == a.memory.allocated_bytes);
}

const StackAssumption* assumption(const Prediction& p, const std::string& field) {
  for (const auto& s : p.stack)
    if (s.field == field) return &s;
  return nullptr;
}

struct Overlap {
  const char* field;
  const std::string* job;
  double StepBreakdown::*term;
};
}  // namespace

TEST_CASE("an overlap descriptor moves only its communication term: off exposes it, on hides it", "[stack][physics]") {
  for (const auto& o : {Overlap{"tp_comm", &kLayered, &StepBreakdown::tp_communication},
                        Overlap{"p2p", &kLayered, &StepBreakdown::pp_communication},
                        Overlap{"grad_reduce", &kLayered, &StepBreakdown::dp_communication},
                        Overlap{"param_gather", &kLayered, &StepBreakdown::dp_communication},
                        Overlap{"a2a", &kExperts, &StepBreakdown::ep_communication},
                        Overlap{"grad_reduce", &kDataParallel, &StepBreakdown::dp_communication}}) {
    INFO(o.field << " on " << *o.job);
    const std::string key = std::string("overlap.") + o.field;
    const auto assumed = predict(*o.job);
    const auto on = predict(*o.job, "overlap: {" + std::string(o.field) + ": true}\n");
    const auto off = predict(*o.job, "overlap: {" + std::string(o.field) + ": false}\n");
    only_moves(assumed, on, o.term);
    only_moves(assumed, off, o.term);
    CHECK(off.breakdown.*o.term > on.breakdown.*o.term);
    CHECK(off.breakdown.*o.term >= assumed.breakdown.*o.term);
    CHECK(off.iteration_s > on.iteration_s);
    // What was assumed, and what was stated, is said.
    REQUIRE(assumption(assumed, key));
    CHECK_FALSE(assumption(assumed, key)->stated);
    REQUIRE(assumption(off, key));
    CHECK(assumption(off, key)->stated);
    CHECK(assumption(off, key)->effect == "exposed");
  }
}

TEST_CASE("overlap off exposes all of the collective; on hides at most the compute beside it", "[stack][physics]") {
  // Data-parallel BERT: with the reduction after the backward, every bucket is on the critical path.
  const auto off = predict(kDataParallel, "overlap: {grad_reduce: false}\n");
  CHECK(off.breakdown.dp_communication == Approx(off.breakdown.communication).epsilon(1e-9));
  // TP on: a share of the TP collectives stays exposed, however much GEMM time there is.
  const auto on = predict(kLayered, "overlap: {tp_comm: true}\n");
  const auto tp_off = predict(kLayered, "overlap: {tp_comm: false}\n");
  CHECK(on.breakdown.tp_communication >= 0.15 * tp_off.breakdown.tp_communication * (1 - 1e-9));
  CHECK(on.breakdown.tp_communication > 0);
}

TEST_CASE("an overlap that does not act on the job changes nothing and is not listed", "[stack][physics]") {
  const auto base = predict(kDataParallel);
  for (const char* f : {"tp_comm", "p2p", "a2a", "param_gather"}) {
    INFO(f);
    const auto stated = predict(kDataParallel, "overlap: {" + std::string(f) + ": false}\n");
    CHECK(stated.iteration_s == base.iteration_s);
    CHECK_FALSE(assumption(stated, std::string("overlap.") + f));
  }
}

TEST_CASE("CUDA graphs remove the host launch time and nothing else", "[stack][physics]") {
  const auto eager = predict(kLaunchBound);
  const auto graphs = predict(kLaunchBound, "cuda_graphs: true\n");
  REQUIRE(eager.breakdown.framework_overhead > 0);
  CHECK(graphs.breakdown.framework_overhead == 0);
  CHECK(graphs.breakdown.forward + graphs.breakdown.backward ==
        Approx(eager.breakdown.forward + eager.breakdown.backward - eager.breakdown.framework_overhead).epsilon(1e-9));
  CHECK(graphs.breakdown.optimizer == eager.breakdown.optimizer);
  CHECK(graphs.breakdown.communication == eager.breakdown.communication);
  CHECK(graphs.memory.allocated_bytes == eager.memory.allocated_bytes);
  CHECK(predict(kLaunchBound, "cuda_graphs: false\n").iteration_s == eager.iteration_s);
  // A GPU-bound step has no launch time to remove.
  const auto big = predict(kLayered), big_graphs = predict(kLayered, "cuda_graphs: true\n");
  CHECK(big_graphs.iteration_s == Approx(big.iteration_s).epsilon(1e-12));
}

TEST_CASE("an optimizer looping over parameter tensors moves only the optimizer step", "[stack][physics]") {
  // BERT-base on one GPU: ~200 parameter tensors of AdamW at 7 kernels each, launch-bound.
  const auto fused = predict(kLaunchBound);
  const auto looped = predict(kLaunchBound, "fused_optimizer: false\n");
  only_moves(fused, looped, &StepBreakdown::optimizer);
  CHECK(looped.breakdown.optimizer > fused.breakdown.optimizer);
  CHECK(predict(kLaunchBound, "fused_optimizer: true\n").iteration_s == fused.iteration_s);
  // SGD launches one kernel per tensor, AdamW seven.
  const auto sgd = predict(kLaunchBound, "optimizer: sgd\nfused_optimizer: false\n");
  CHECK(looped.breakdown.optimizer > 3 * sgd.breakdown.optimizer);
  // CUDA graphs capture the loop's launches too.
  const auto captured = predict(kLaunchBound, "fused_optimizer: false\ncuda_graphs: true\n");
  CHECK(captured.breakdown.optimizer == Approx(fused.breakdown.optimizer).epsilon(1e-12));
}

TEST_CASE("compile fuses elementwise and norm chains and leaves GEMMs, optimizer and communication", "[stack][physics]") {
  for (const auto* job : {&kLaunchBound, &kLayered}) {
    INFO(*job);
    const auto eager = predict(*job);
    const auto compiled = predict(*job, "compile: true\n");
    CHECK(compiled.breakdown.forward + compiled.breakdown.backward <
          eager.breakdown.forward + eager.breakdown.backward);
    CHECK(compiled.breakdown.optimizer == eager.breakdown.optimizer);
    CHECK(compiled.breakdown.communication == Approx(eager.breakdown.communication).epsilon(1e-12));
    CHECK(compiled.memory.allocated_bytes == eager.memory.allocated_bytes);
    CHECK(predict(*job, "compile: false\n").iteration_s == eager.iteration_s);
  }
  // Only memory-bound time moves: the GEMM share of the busy kernel time rises.
  const auto eager = predict(kLayered), compiled = predict(kLayered, "compile: true\n");
  CHECK(compiled.gemm_math_share > eager.gemm_math_share);
  // An XLA job is compiled already: stating compile changes nothing and is not listed.
  const std::string xla = kLaunchBound + "xla: true\n";
  CHECK(predict(xla, "compile: true\n").iteration_s == predict(xla).iteration_s);
  CHECK_FALSE(assumption(predict(xla), "compile"));
}

TEST_CASE("a graph-compiled TensorFlow step keeps the compiled launch share", "[stack][physics]") {
  // The launch rules are one chain: cuda_graphs, then compiled (XLA, JAX, compile: true), then
  // TensorFlow's and MXNet's eager share. An XLA TensorFlow step launches less than an eager one.
  const std::string tf = "model: bert-base\nprecision: amp_fp16\nbatch_size: 1\nseq_len: 128\nframework: tensorflow\n"
                         "cluster: {gpu: a100-sxm4-80gb, num_gpus: 1}\n";
  const auto eager = predict(tf), xla = predict(tf + "xla: true\n");
  REQUIRE(eager.breakdown.framework_overhead > 0);
  CHECK(xla.breakdown.framework_overhead < eager.breakdown.framework_overhead);
  CHECK(predict(tf + "xla: true\n", "cuda_graphs: true\n").breakdown.framework_overhead == 0);
}
