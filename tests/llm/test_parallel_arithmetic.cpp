// Closed-form pieces of the parallel model against the formulas they come from: pipeline bubble
// and in-flight micro-batches (Narayanan et al. 2021; Korthikanti et al. 2022), collective bus
// factors, TP / ZeRO / FSDP / CP / EP volumes, communicator shapes, and MFU arithmetic.
#include <catch2/catch.hpp>

#include "llm_test_support.hpp"

using namespace ptp::predict;

TEST_CASE("pipeline bubble: (pp-1)/m for 1F1B, divided by the interleaving degree", "[llm][schedule]") {
  CHECK(bubble_fraction(1, 1, 8) == 0);
  CHECK(bubble_fraction(4, 1, 8) == Approx(3.0 / 8));
  CHECK(bubble_fraction(4, 2, 8) == Approx(3.0 / 16));
  CHECK(bubble_fraction(8, 5, 128) == Approx(7.0 / 640));
}

TEST_CASE("1F1B stages hold pp - stage micro-batches; interleaving adds (pp-1)/(pp*vp)", "[llm][schedule]") {
  CHECK(in_flight_microbatches(1, 1, 16, 0) == 1);
  CHECK(in_flight_microbatches(4, 1, 8, 0) == 4);
  CHECK(in_flight_microbatches(4, 1, 8, 3) == 1);
  CHECK(in_flight_microbatches(4, 1, 2, 0) == 2);  // fewer micro-batches than stages
  CHECK(in_flight_microbatches(4, 2, 8, 0) == Approx(4 * (1 + 3.0 / 8)));
}

TEST_CASE("collective bus factors", "[llm][collectives]") {
  CHECK(bus_factor(Collective::all_reduce, 8) == Approx(2 * 7.0 / 8));
  CHECK(bus_factor(Collective::all_gather, 8) == Approx(7.0 / 8));
  CHECK(bus_factor(Collective::reduce_scatter, 4) == Approx(3.0 / 4));
  CHECK(bus_factor(Collective::all_reduce, 1) == 0);
}

TEST_CASE("TP volume: 4 all-reduces per block, or 8 gathers/scatters of the same wire bytes with SP",
          "[llm][volumes]") {
  const double tokens = 8192, hidden = 8192;
  const auto ar = tp_volume_per_block(tokens, hidden, 2, 4, false);
  CHECK(ar.collectives == 4);
  CHECK(ar.kind == Collective::all_reduce);
  CHECK(ar.bytes == Approx(tokens * hidden * 2));
  const auto sp = tp_volume_per_block(tokens, hidden, 2, 4, true);
  CHECK(sp.collectives == 8);
  CHECK(sp.collectives * bus_factor(sp.kind, 4) * sp.bytes == Approx(ar.collectives * bus_factor(ar.kind, 4) * ar.bytes));
  CHECK(tp_volume_per_block(tokens, hidden, 2, 1, false).collectives == 0);
}

TEST_CASE("sharding volumes per optimizer step", "[llm][volumes]") {
  const double P = 1e9;
  const auto none = sharding_volume(P, 2, 4, Sharding::none, 8);
  CHECK(none.all_reduce == Approx(4 * P));
  CHECK(none.all_gather == 0);
  const auto z1 = sharding_volume(P, 2, 4, Sharding::zero1, 8);  // Megatron distributed optimizer
  CHECK(z1.reduce_scatter == Approx(4 * P));
  CHECK(z1.all_gather == Approx(2 * P));
  CHECK(z1.all_reduce == 0);
  const auto fsdp = sharding_volume(P, 2, 4, Sharding::fsdp, 8);  // gather twice and scatter once per micro-batch
  CHECK(fsdp.all_gather == Approx(2 * 8 * 2 * P));
  CHECK(fsdp.reduce_scatter == Approx(8 * 4 * P));
}

TEST_CASE("context-parallel ring and expert all-to-all volumes", "[llm][volumes]") {
  // Each rank's K,V chunk travels cp-1 hops forward; backward moves K,V and dK,dV.
  CHECK(cp_bytes_per_block(2048, 1024, 2, 4) == Approx(3 * 3 * (2048 * 2 * 1024 * 2)));
  CHECK(cp_bytes_per_block(2048, 1024, 2, 1) == 0);
  // Dispatch + combine, forward and backward, of every routed copy of every token.
  CHECK(ep_bytes_per_block(4096, 2048, 8, 2) == Approx(4.0 * 4096 * 8 * 2048 * 2));
}

TEST_CASE("communicator shapes follow Megatron's tp-cp-dp-pp rank order", "[llm][groups]") {
  Layout l;
  l.tp = 4, l.cp = 2, l.dp = 4, l.pp = 2, l.gpus_per_node = 8;
  CHECK(tp_group(l).size == 4);
  CHECK(tp_group(l).ranks_per_node == 4);
  CHECK(cp_group(l).ranks_per_node == 2);  // cp ranks are tp apart: both in the node
  CHECK(dp_group(l).size == 8);             // gradients reduce over DP x CP
  CHECK(dp_group(l).ranks_per_node == 2);
  CHECK_FALSE(pp_peer_same_node(l));
  l.tp = 8, l.cp = 1;
  CHECK(dp_group(l).ranks_per_node == 1);  // one DP rank per node: the NICs carry it all
  l.tp = 16;
  CHECK(tp_group(l).ranks_per_node == 8);  // TP across two nodes
  l.tp = 1, l.dp = 2, l.pp = 4;
  CHECK(pp_peer_same_node(l));
}

TEST_CASE("collective time: ring over NVLink inside a node, the NIC share across nodes", "[llm][collectives]") {
  const auto job = ptp::test::resolve(ptp::test::llm_job("llama3-8b", 16, ""));
  const AnalyticalConstants k;
  const double bytes = 1e9;
  const double in_node = collective_seconds(Collective::all_reduce, bytes, {8, 8}, job, k);
  CHECK(in_node == Approx(2 * 7.0 / 8 * bytes / (450e9 * k.nvlink_efficiency) + k.collective_base_latency_s + 14e-6)
                       .epsilon(1e-6));
  const double across = collective_seconds(Collective::all_gather, bytes, {2, 1}, job, k);
  CHECK(across == Approx(0.5 * bytes / (50e9 * k.inter_node_efficiency)).epsilon(0.01));
  CHECK(collective_seconds(Collective::all_reduce, bytes, {1, 1}, job, k) == 0);
}

TEST_CASE("model FLOPs are 6 N per token plus 12 L s d attention", "[llm][mfu]") {
  const auto job = ptp::test::resolve(ptp::test::llm_job("llama3-8b", 1, "", "bf16", "h100-sxm5-80gb", 4096));
  // Llama 3 8B matmul parameters: 32 blocks of (4096 x 6144 qkv + 4096^2 out + 3 x 4096 x 14336 MLP)
  // and the 128256 x 4096 LM head.
  const double blocks = 32 * (4096.0 * 6144 + 4096.0 * 4096 + 3 * 4096.0 * 14336);
  const double n = blocks + 128256.0 * 4096;
  const double tokens = 4096;
  const double expected = 6 * n * tokens + 12 * 32 * 4096.0 * 4096 * tokens;
  CHECK(model_flops_per_microbatch(job.workload) == Approx(expected).epsilon(1e-6));
}

TEST_CASE("MFU is against the BF16 dense peak; mfu_precision_peak against the policy's GEMM peak", "[llm][mfu]") {
  const auto p = ptp::test::predict(ptp::test::llm_job("llama3-8b", 8, "sharding: zero1\n", "fp8", "h100-sxm5-80gb", 8192, 64));
  REQUIRE(p.iteration_s > 0);
  CHECK(p.mfu == Approx(p.model_flops_per_step / (p.iteration_s * 8 * 989.4e12)));
  CHECK(p.mfu_precision_peak == Approx(p.mfu * 989.4 / 1978.9));
  CHECK_THAT(p.mfu_peak_basis, Catch::Contains("bf16"));
  CHECK_THAT(p.mfu_precision_peak_basis, Catch::Contains("fp8"));
  CHECK(p.tokens_per_second_per_gpu == Approx(p.tokens_per_second / 8));
  // A100 has no FP8: an FP16 job's precision peak is its FP16 peak.
  const auto a = ptp::test::predict(ptp::test::llm_job("gpt3-125m", 8, "", "amp_fp16", "a100-sxm4-80gb", 2048, 64));
  CHECK(a.mfu_precision_peak == Approx(a.mfu));
}
