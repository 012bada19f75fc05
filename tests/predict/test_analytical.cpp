#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "ptp/predict/analytical.hpp"
#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/output.hpp"

using namespace ptp::predict;

namespace {
const Catalogs& catalogs() {
  static const Catalogs c(std::string(PTP_SOURCE_DIR) + "/configs");
  return c;
}

Prediction predict(const std::string& model, const std::string& precision, const std::string& gpu, int gpus,
                   int batch, int seq_len = 0, const std::string& extra = "") {
  std::string text = "model: " + model + "\nprecision: " + precision + "\nbatch_size: " + std::to_string(batch) + "\n";
  if (seq_len) text += "seq_len: " + std::to_string(seq_len) + "\n";
  text += "cluster: {gpu: " + gpu + ", num_gpus: " + std::to_string(gpus) + "}\n" + extra;
  const auto job = parse_job_spec(YamlReader::load_string(text, "job.yaml"));
  return predict_analytical(resolve_job(job, catalogs()));
}
}  // namespace

TEST_CASE("mixed precision is predicted faster than FP32, and by a realistic factor", "[analytical]") {
  const auto fp32 = predict("resnet50", "fp32", "v100-sxm2-16gb", 1, 256);
  const auto amp = predict("resnet50", "amp_fp16", "v100-sxm2-16gb", 1, 256);
  const double speedup = fp32.iteration_s / amp.iteration_s;
  // Published DLE ResNet-50 on V100: AMP ~3x FP32; a predictor ignoring precision would say 1x.
  CHECK(speedup > 1.8);
  CHECK(speedup < 5.0);
  const auto tf32 = predict("bert-large", "tf32", "a100-sxm4-80gb", 1, 32, 512);
  const auto ampbf = predict("bert-large", "amp_bf16", "a100-sxm4-80gb", 1, 32, 512);
  CHECK(tf32.iteration_s / ampbf.iteration_s > 1.3);
}

TEST_CASE("breakdown sums to the iteration time", "[analytical]") {
  const auto p = predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 16, 32, 128);
  const auto& b = p.breakdown;
  const double sum = b.forward + b.backward + b.optimizer + b.loss_scaling + b.communication_exposed;
  CHECK(sum <= p.iteration_s);
  CHECK(sum > 0.9 * p.iteration_s);
  CHECK(b.loss_scaling > 0);  // FP16 needs loss scaling
  CHECK(b.communication > 0);
  CHECK(b.communication_exposed <= b.communication);
  CHECK(p.iteration_low_s < p.iteration_s);
  CHECK(p.iteration_high_s > p.iteration_s);
  CHECK(predict("bert-large", "amp_bf16", "a100-sxm4-80gb", 1, 32, 128).breakdown.loss_scaling == 0);
}

TEST_CASE("single GPU has no communication; more nodes cost more of it", "[analytical]") {
  CHECK(predict("resnet50", "amp_fp16", "a100-sxm4-80gb", 1, 256).breakdown.communication == 0);
  const auto one_node = predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 8, 32, 128);
  const auto four_nodes = predict("bert-large", "amp_fp16", "a100-sxm4-80gb", 32, 32, 128);
  CHECK(four_nodes.breakdown.communication > one_node.breakdown.communication);
  CHECK(four_nodes.samples_per_second > 3 * one_node.samples_per_second);
}

TEST_CASE("all-reduce follows the ring formula at the link bandwidth", "[analytical]") {
  const auto job = resolve_job(parse_job_spec(YamlReader::load_string(
                                   "model: resnet50\nprecision: fp32\nbatch_size: 1\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 8}\n",
                                   "job.yaml")),
                               catalogs());
  AnalyticalConstants k;
  const double bytes = 1e9;
  const auto e = allreduce_time(bytes, job, k);
  const double per_bucket_latency = k.collective_base_latency_s + 2e-6 * 7;
  const double expected = 2.0 * 7 / 8 * bytes / (300e9 * k.nvlink_efficiency) + 40 * per_bucket_latency;
  CHECK(e.seconds == Approx(expected).epsilon(0.05));
  CHECK(e.buckets == 40);
}

TEST_CASE("memory estimate flags jobs that do not fit and names a fix", "[analytical]") {
  const auto big = predict("gpt2-xl", "fp32", "v100-sxm2-16gb", 1, 64, 1024);
  CHECK_FALSE(big.memory.fits);
  REQUIRE_FALSE(big.warnings.empty());
  CHECK_THAT(big.warnings.front(), Catch::Contains("batch_size"));
  const auto small = predict("resnet50", "amp_fp16", "a100-sxm4-80gb", 1, 64);
  CHECK(small.memory.fits);
  CHECK(small.memory.per_gpu_bytes > small.memory.weights);
}

TEST_CASE("an 80 GB H100 holds 80 GiB: a job at 77 GB fits, one inside the headroom is a warning", "[analytical][memory]") {
  const std::string fsdp = "sharding: fsdp\nactivation_checkpointing: selective\n";
  const auto at_77gb = predict("llama3-8b", "bf16", "h100-sxm5-80gb", 8, 2, 4864, fsdp);
  REQUIRE(at_77gb.memory.per_gpu_bytes > 77e9);  // more than 76 GB (95 % of 80 x 10^9): refused before
  REQUIRE(at_77gb.memory.per_gpu_bytes < 78e9);
  CHECK(at_77gb.memory.capacity_bytes == 80.0 * 1073741824.0);
  CHECK(at_77gb.memory.fits);
  CHECK_FALSE(at_77gb.memory.near_capacity);
  for (const auto& w : at_77gb.warnings) CHECK_THAT(w, !Catch::Contains("predicted memory"));
  // Within the headroom (76..80 GiB): fits, warned, not refused.
  const auto near = predict("llama3-8b", "bf16", "h100-sxm5-80gb", 8, 2, 5376, fsdp);
  REQUIRE(near.memory.per_gpu_bytes > (1 - kMemoryHeadroom) * near.memory.capacity_bytes);
  REQUIRE(near.memory.per_gpu_bytes <= near.memory.capacity_bytes);
  CHECK(near.memory.fits);
  CHECK(near.memory.near_capacity);
  CHECK(std::any_of(near.warnings.begin(), near.warnings.end(),
                    [](const std::string& w) { return w.find("GiB per GPU is within 5 %") != std::string::npos; }));
  // Beyond 80 GiB: does not fit.
  const auto over = predict("llama3-8b", "bf16", "h100-sxm5-80gb", 8, 3, 8192, fsdp);
  CHECK_FALSE(over.memory.fits);
}

TEST_CASE("allocated memory counts PyTorch's cuBLAS workspace: 8.125 MiB before Hopper, 32 MiB from it on",
          "[analytical][memory]") {
  // CublasHandlePool.cpp's defaults with CUBLAS_WORKSPACE_CONFIG unset: :4096:2:16:8, and :4096:8 on sm_90.
  const auto ampere = predict("llama3-8b", "bf16", "a100-sxm4-80gb", 8, 1, 4096);
  const auto hopper = predict("llama3-8b", "bf16", "h100-sxm5-80gb", 8, 1, 4096);
  CHECK(ampere.memory.workspace == Approx((4096.0 * 2 + 16 * 8) * 1024));
  CHECK(hopper.memory.workspace == Approx(32.0 * 1024 * 1024));
  CHECK(hopper.memory.allocated_bytes - ampere.memory.allocated_bytes ==
        Approx(hopper.memory.workspace - ampere.memory.workspace));
}

TEST_CASE("context parallelism exchanges K/V every layer: exposed, growing with the sequence, on its own trace track",
          "[analytical][context]") {
  double previous = 0;
  for (int seq : {8192, 32768, 131072}) {
    INFO(seq);
    const auto p = predict("llama3-8b", "bf16", "h100-sxm5-80gb", 8, 1, seq, "parallelism: {context: 2}\n");
    CHECK(p.breakdown.cp_communication > previous);
    previous = p.breakdown.cp_communication;
    const auto trace = nlohmann::json::parse(render_chrome_trace(p));
    bool track = false, span = false;
    for (const auto& e : trace["traceEvents"]) {
      track = track || (e["ph"] == "M" && e["args"]["name"] == "context parallel");
      span = span || (e["ph"] == "X" && e["name"].get<std::string>().rfind("context parallel exposed", 0) == 0 &&
                      e["dur"].get<double>() > 0);
    }
    CHECK(track);
    CHECK(span);
  }
  // Without context parallelism there is no exchange and no track.
  const auto none = predict("llama3-8b", "bf16", "h100-sxm5-80gb", 8, 1, 8192);
  CHECK(none.breakdown.cp_communication == 0);
  CHECK(render_chrome_trace(none).find("context parallel") == std::string::npos);
}

TEST_CASE("totals follow the run and cost", "[analytical]") {
  const auto p = predict("resnet50", "amp_fp16", "a100-sxm4-80gb", 8, 256, 0,
                         "run: {epochs: 2, dataset_size: 1281167}\ncost: {usd_per_gpu_hour: 2}\n");
  CHECK(p.total_steps == 2 * std::ceil(1281167.0 / 2048));
  CHECK(p.total_seconds == Approx(p.total_steps * p.iteration_s));
  CHECK(p.gpu_hours == Approx(p.total_seconds / 3600 * 8));
  CHECK(p.cost_usd == Approx(p.gpu_hours * 2));
}

TEST_CASE("bigger batches amortize fixed costs", "[analytical]") {
  const auto small = predict("resnet50", "amp_fp16", "a100-sxm4-80gb", 1, 8);
  const auto large = predict("resnet50", "amp_fp16", "a100-sxm4-80gb", 1, 256);
  CHECK(large.samples_per_second > small.samples_per_second);
}

TEST_CASE("embedding lookups move the weights' dtype: FP32 under autocast, 16-bit when pure", "[analytical]") {
  const auto resolve = [](const std::string& precision) {
    const std::string text = "model: ncf\nprecision: " + precision +
                             "\nbatch_size: 1000000\ncluster: {gpu: a100-sxm4-80gb, num_gpus: 1}\n";
    return resolve_job(parse_job_spec(YamlReader::load_string(text, "job.yaml")), catalogs());
  };
  const auto fp32 = resolve("fp32"), amp = resolve("amp_fp16"), pure = resolve("fp16");
  const AnalyticalConstants k;
  int embeddings = 0;
  for (std::size_t i = 0; i < amp.workload.ops.size(); ++i) {
    const Op& op = amp.workload.ops[i];
    if (op.kind != OpKind::embedding) continue;
    ++embeddings;
    const double t32 = analytical_op_time(fp32.workload.ops[i], fp32, k).forward_s;
    // autocast casts matmuls and convs, not embeddings: the gather stays as slow as FP32.
    CHECK(analytical_op_time(op, amp, k).forward_s == Approx(t32));
    CHECK(analytical_op_time(pure.workload.ops[i], pure, k).forward_s < 0.75 * t32);
  }
  CHECK(embeddings > 0);
}

TEST_CASE("autocast runs batch norm at the activation dtype and keeps layer norm in FP32", "[analytical]") {
  const auto resolve = [](const std::string& model, const std::string& precision) {
    const std::string text = "model: " + model + "\nprecision: " + precision + "\nbatch_size: 64\nseq_len: 128\n" +
                             "cluster: {gpu: a100-sxm4-80gb, num_gpus: 1}\n";
    return resolve_job(parse_job_spec(YamlReader::load_string(text, "job.yaml")), catalogs());
  };
  const AnalyticalConstants k;
  // Same op, same shapes, two policies: the forward time ratio of a memory-bound norm is its byte ratio.
  const auto norm_ratio = [&](const std::string& model, bool want_batch_norm) {
    const auto fp32 = resolve(model, "fp32"), amp = resolve(model, "amp_fp16");
    for (std::size_t i = 0; i < amp.workload.ops.size(); ++i) {
      const Op& op = amp.workload.ops[i];
      if (op.kind != OpKind::norm || op.batch_norm != want_batch_norm || op.elements_in < 1e6) continue;
      return analytical_op_time(op, amp, k).forward_s / analytical_op_time(fp32.workload.ops[i], fp32, k).forward_s;
    }
    return -1.0;
  };
  const double batch_norm = norm_ratio("resnet50", true);
  const double layer_norm = norm_ratio("bert-large", false);
  REQUIRE(batch_norm > 0);
  REQUIRE(layer_norm > 0);
  CHECK(batch_norm == Approx(0.5).margin(0.05));  // FP16 activations in and out
  CHECK(layer_norm == Approx(1.0).margin(0.05));  // promoted to FP32 by autocast
  // Composite YAMLs mark theirs with `type: batch` (ssd300's backbone and extra layers).
  CHECK(norm_ratio("ssd300", true) == Approx(batch_norm).margin(0.05));
}

TEST_CASE("GPUs with more tensor FLOP/s per board watt than A100 SXM4 reach less of their tensor peak",
          "[analytical]") {
  const AnalyticalConstants k;
  const auto gpu = [](const std::string& id) -> const GpuSpec& { return catalogs().gpus().get(id, ""); };
  const double b200 = tensor_core_power_derating(gpu("b200-sxm-180gb"), k);
  // 2250 TFLOP/s at 1000 W is 2.9x A100 SXM4's 0.78 TFLOP/s per W.
  CHECK(b200 == Approx(std::pow(2250.0 / 1000 / 0.78, -k.tc_power_exponent)).epsilon(1e-6));
  CHECK(b200 < tensor_core_power_derating(gpu("h100-sxm5-80gb"), k));
  CHECK(tensor_core_power_derating(gpu("h100-sxm5-80gb"), k) < 1.0);
  CHECK(tensor_core_power_derating(gpu("a100-sxm4-80gb"), k) == 1.0);  // the reference itself
  CHECK(tensor_core_power_derating(gpu("v100-sxm2-16gb"), k) == 1.0);  // below it: no derating
  GpuSpec unknown_power = gpu("h100-sxm5-80gb");
  unknown_power.tdp_w = 0;
  CHECK(tensor_core_power_derating(unknown_power, k) == 1.0);

  // It acts on tensor-core math only: an H100 FP32 job keeps its SIMT efficiency.
  const auto resolve = [](const std::string& precision) {
    const std::string text = "model: bert-large\nprecision: " + precision +
                             "\nbatch_size: 32\nseq_len: 128\ncluster: {gpu: h100-sxm5-80gb, num_gpus: 1}\n";
    return resolve_job(parse_job_spec(YamlReader::load_string(text, "job.yaml")), catalogs());
  };
  AnalyticalConstants no_derating = k;
  no_derating.tc_power_exponent = 0;
  const auto bf16 = resolve("amp_bf16"), fp32 = resolve("fp32");
  int gemms = 0;
  for (std::size_t i = 0; i < bf16.workload.ops.size(); ++i) {
    const Op& op = bf16.workload.ops[i];
    if (op.kind != OpKind::gemm || op.fwd_flops < 1e10) continue;
    ++gemms;
    CHECK(analytical_op_time(op, bf16, k).forward_s > analytical_op_time(op, bf16, no_derating).forward_s);
    CHECK(analytical_op_time(fp32.workload.ops[i], fp32, k).forward_s ==
          Approx(analytical_op_time(fp32.workload.ops[i], fp32, no_derating).forward_s));
  }
  CHECK(gemms > 0);
}

TEST_CASE("model FLOPs count conv work, so a CNN's MFU is its real utilisation", "[analytical]") {
  const auto p = predict("resnet50", "amp_fp16", "a100-sxm4-80gb", 1, 256);
  // ResNet-50 v1.5 forward: ~4.1 GMACs = ~8.2 GFLOPs per 224x224 image; training counts 3x forward.
  CHECK(p.model_flops_per_step / (3.0 * 256) == Approx(8.2e9).epsilon(0.05));
  CHECK(p.mfu == Approx(p.model_flops_per_step / (p.iteration_s * 312e12)));
  CHECK(p.mfu > 0.05);
  CHECK(p.mfu < 0.8);
}

TEST_CASE("channels-first 16-bit convs pay cuDNN's NHWC transposes; TF32 and FP32 convs do not",
          "[analytical]") {
  const auto resolve = [](const std::string& precision, const std::string& extra) {
    const std::string text = "model: resnet50\nprecision: " + precision + "\nbatch_size: 256\n" + extra +
                             "cluster: {gpu: a100-sxm4-80gb, num_gpus: 1}\n";
    return resolve_job(parse_job_spec(YamlReader::load_string(text, "job.yaml")), catalogs());
  };
  const AnalyticalConstants k;
  const auto conv_seconds = [&](const ResolvedJob& job) {
    double fwd = 0, bwd = 0;
    for (const Op& op : job.workload.ops)
      if (op.kind == OpKind::conv) {
        const auto t = analytical_op_time(op, job, k);
        fwd += t.forward_s;
        bwd += t.backward_s;
      }
    return std::pair{fwd, bwd};
  };
  // Each transposed conv reads and writes its input and output once more forward, twice backward:
  // at least 2 * (in + out) * 2 bytes at the A100's 2 TB/s, so ResNet-50 pays well over a millisecond
  // per 256-image step (the gap between Lambda's NCHW and DLE's NHWC AMP runs of the same code).
  const auto [nchw_fwd, nchw_bwd] = conv_seconds(resolve("amp_fp16", "memory_format: nchw\n"));
  const auto [nhwc_fwd, nhwc_bwd] = conv_seconds(resolve("amp_fp16", "memory_format: nhwc\n"));
  CHECK(nchw_fwd - nhwc_fwd > 1e-3);
  CHECK((nchw_bwd - nhwc_bwd) == Approx(2 * (nchw_fwd - nhwc_fwd)).epsilon(1e-9));
  // PyTorch's default is channels-first; TensorFlow's is channels-last.
  CHECK(conv_seconds(resolve("amp_fp16", "")).first == Approx(nchw_fwd));
  CHECK(conv_seconds(resolve("amp_fp16", "framework: tensorflow\n")).first == Approx(nhwc_fwd));
  for (const std::string precision : {"tf32", "fp32"})
    CHECK(conv_seconds(resolve(precision, "memory_format: nchw\n")).first ==
          Approx(conv_seconds(resolve(precision, "memory_format: nhwc\n")).first));
}

TEST_CASE("FP32 Winograd convs on maps of 32x32 pixels or more get the larger F(4x4,3x3) saving",
          "[analytical]") {
  const auto job = resolve_job(parse_job_spec(YamlReader::load_string(
                                   "model: resnet50\nprecision: fp32\nbatch_size: 128\n"
                                   "cluster: {gpu: v100-sxm2-16gb, num_gpus: 1}\n",
                                   "job.yaml")),
                               catalogs());
  AnalyticalConstants k, flat = k;
  flat.winograd_large_map_speedup = flat.winograd_simt_speedup;
  int large = 0, small = 0;
  for (const Op& op : job.workload.ops) {
    // 3x3, stride 1, one group: layer1 convs see 56x56 per image, layer3 convs 14x14.
    if (op.kind != OpKind::conv || op.batch > 1 || std::abs(op.k * op.m / op.elements_in - 9) > 0.5) continue;
    const double pixels = op.m / 128;
    const double ratio = analytical_op_time(op, job, flat).forward_s / analytical_op_time(op, job, k).forward_s;
    if (pixels >= 1024) {
      ++large;
      CHECK(ratio == Approx(k.winograd_large_map_speedup / k.winograd_simt_speedup).epsilon(0.02));
    } else {
      ++small;
      CHECK(ratio == Approx(1.0));
    }
  }
  CHECK(large > 0);
  CHECK(small > 0);
}

TEST_CASE("NCCL peer-to-peer disabled stages intra-node collectives through host memory", "[analytical][comm]") {
  auto job_for = [&](bool p2p) {
    return resolve_job(parse_job_spec(YamlReader::load_string(
                           std::string("model: bert-large\nprecision: amp_fp16\nbatch_size: 8\nseq_len: 384\n"
                                       "cluster: {gpu: a100-sxm4-80gb, num_gpus: 8") +
                               (p2p ? "" : ", nccl_p2p: false") + "}\n",
                           "j")),
                       catalogs());
  };
  const auto with_p2p = job_for(true), staged = job_for(false);
  const AnalyticalConstants k;
  // A100 SXM4: NVLink at its efficiency vs PCIe gen4 x16 through host memory.
  CHECK(intra_node_bus_gbs(staged, k) < intra_node_bus_gbs(with_p2p, k) / 5);
  const auto a = predict_analytical(with_p2p, k), b = predict_analytical(staged, k);
  CHECK(b.breakdown.communication > 5 * a.breakdown.communication);
  CHECK(b.iteration_s > a.iteration_s);
  // The spec writes the setting back and refuses a non-boolean.
  CHECK(job_spec_to_yaml(staged.job).find("nccl_p2p: false") != std::string::npos);
  CHECK_THROWS_WITH(parse_job_spec(YamlReader::load_string(
                        "model: bert-large\nprecision: fp32\nbatch_size: 8\nseq_len: 128\n"
                        "cluster: {gpu: a100-sxm4-80gb, num_gpus: 8, nccl_p2p: maybe}\n",
                        "j")),
                    Catch::Contains("nccl_p2p"));
}

TEST_CASE("FP32 CUDA-core GEMMs on sm_86 / sm_89 run against half the listed FP32 peak; tensor-core math does not",
          "[analytical]") {
  const auto gpu = [](const std::string& id) -> const GpuSpec& { return catalogs().gpus().get(id, ""); };
  CHECK(gpu("a40").simt_fp32_gemm_share() == 0.5);
  CHECK(gpu("l40s").simt_fp32_gemm_share() == 0.5);
  CHECK(gpu("rtx-3090").simt_fp32_gemm_share() == 0.5);
  CHECK(gpu("a100-sxm4-80gb").simt_fp32_gemm_share() == 1.0);
  CHECK(gpu("h100-sxm5-80gb").simt_fp32_gemm_share() == 1.0);
  CHECK(gpu("quadro-rtx-6000").simt_fp32_gemm_share() == 1.0);
  // The same A40 read as an sm_80 part: its large FP32 GEMMs take twice as long as sm_86, its TF32 ones
  // no longer.
  const AnalyticalConstants k;
  GpuSpec as_sm80 = gpu("a40");
  as_sm80.compute_capability = 8.0;
  const auto resolve = [](const std::string& precision) {
    const std::string text = "model: bert-large\nprecision: " + precision +
                             "\nbatch_size: 32\nseq_len: 128\ncluster: {gpu: a40, num_gpus: 1}\n";
    return resolve_job(parse_job_spec(YamlReader::load_string(text, "job.yaml")), catalogs());
  };
  int gemms = 0;
  for (const std::string precision : {"fp32", "tf32"}) {
    const ResolvedJob sm86 = resolve(precision);
    ResolvedJob sm80 = sm86;
    sm80.gpu = &as_sm80;
    for (const Op& op : sm86.workload.ops) {
      if (op.kind != OpKind::gemm || op.fwd_flops < 1e10) continue;
      ++gemms;
      const double ratio = analytical_op_time(op, sm86, k).forward_s / analytical_op_time(op, sm80, k).forward_s;
      INFO(precision << " " << op.name);
      CHECK(ratio == Approx(precision == "fp32" ? 2.0 : 1.0).epsilon(0.02));
    }
  }
  CHECK(gemms > 0);
}
