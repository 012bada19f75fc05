#pragma once
// What the CUDA backend's microbenchmarks are, in CPU-only code: their names, tables, axes and the
// Work of a point (row fields, flops, bytes, math mode, setup), with the same validation and
// messages. The CUDA plugin's benchmarks take their axes() and describe() from here and add run();
// a build without CUDA registers plan-only stand-ins from here (register_plan_only), so
// `--backend cuda --plan --gpu ID` plans a GPU sweep from a login node: a plan needs the catalog
// GPU's rates, not a device. No CUDA header is included.
#include <string>
#include <vector>

#include "ptp/profile/microbenchmark.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda_work {

struct Spec {
  const char* name;
  Table table;
  std::vector<AxisSpec> (*axes)();
  Work (*describe)(const Point& p);  // InputError naming the point for bad values
};

// Every microbenchmark of the CUDA plugin, NCCL collectives included (a plugin built without NCCL
// registers none of those), in name order.
const std::vector<Spec>& specs();
const Spec& spec(const std::string& name);  // std::logic_error for a name not in specs()

// Bytes per element of a GEMM/conv storage dtype (fp32, tf32: 4; fp16, bf16: 2; fp8_e4m3, fp8_e5m2:
// 1); InputError "<where>: dtype must be ..." otherwise.
int dtype_bytes(const std::string& dtype, const std::string& where);

// Registers a stand-in for every spec with the CUDA backend whose run() refuses (a plan-only build).
// Only for a process without the CUDA plugin: the plugin registers the same names.
void register_plan_only(Registry& registry);

}  // namespace ptp::profile::cuda_work
