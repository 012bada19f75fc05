#pragma once
// GPU and fabric catalogs: data from public spec sheets in configs/gpus/*.yaml and
// configs/fabrics/*.yaml. A new GPU is one YAML file; nothing here knows a GPU by name.
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace ptp::vocab {

// An on-demand list price of one GPU for one hour (USD, the instance's price over its GPUs), with
// who lists it and when it was read. usd_per_gpu_hour 0: the catalog has no price for the GPU.
struct GpuPrice {
  double usd_per_gpu_hour = 0;
  std::string provider;  // short, shown with every cost priced from it ("Lambda")
  std::string source;    // the page or document the figure is from
  std::string as_of;     // YYYY-MM-DD or YYYY-MM
  bool known() const { return usd_per_gpu_hour > 0; }
};

// Smallest power cap as a share of TDP where a catalog entry has no power_limit_min_w: the lowest cap
// the Zeus sweeps set relative to TDP (A40: 100 W of 300 W). Read by the catalog's own checks and by
// libpredict's power model.
inline constexpr double kDerivedMinPowerLimitShareOfTdp = 0.33;
// The rule above in words ("0.33 x TDP"), for the errors that name it.
std::string derived_min_power_limit_rule();

struct GpuSpec {
  std::string id, name, architecture, chip, form_factor, memory_type, default_inter_node, source;
  std::vector<std::string> aliases;
  double compute_capability = 0;  // 8.0
  int sms = 0;
  double boost_clock_mhz = 0;
  // Device memory as marketed: NVIDIA's "80 GB" is 80 GiB (an H100 SXM shows 81559 MiB in nvidia-smi).
  double memory_gib = 0;
  double memory_bandwidth_gbs = 0;
  double l2_cache_mb = 0;
  double tdp_w = 0;
  // Board power while the GPU holds a context and waits, and the range nvidia-smi accepts for a
  // power cap (max: TDP). 0 where no public figure is known: ptp::predict::gpu_idle_w and friends
  // (libpredict energy.hpp) then derive them from TDP by a stated rule.
  double idle_w = 0, power_limit_min_w = 0, power_limit_max_w = 0;
  // The cap the board runs under when the job sets none, where a system ships one below TDP (Meta's
  // Grand Teton H100s run at 500 of 700 W). 0: uncapped. Published runs on such a system were
  // measured under it, so the power-cap what-if applies to them as to a job's own cap.
  double default_power_limit_w = 0;
  std::map<std::string, double> peak_tflops;  // dense peaks by math mode
  std::string intra_kind;
  double intra_bandwidth_gbs = 0;  // per GPU, one direction
  int max_gpus_per_node = 8;
  bool intra_switched = false;
  int pcie_gen = 3;
  int launch_year = 0;
  GpuPrice price;  // optional `price:` mapping of the catalog file

  int sm_version() const { return static_cast<int>(compute_capability * 10 + 0.5); }
  // Share of the listed FP32 peak an FP32 (CUDA-core) GEMM or convolution can issue. sm_86 and sm_89
  // (GA10x, AD10x) list a peak that needs an FFMA issued every cycle on two datapaths, one shared
  // with INT32, so each shared-memory load and address instruction of a GEMM's inner loop costs FP32
  // throughput: NeuSight's SGEMMs on an L4 reach 0.29 of the listed peak (median of 865; A100
  // 0.81-0.89, V100 0.96, H100 0.74), flopmetrics' FP32 Llama-3.2-1B steps 0.37 on an A40 and 0.28
  // on an L40S against 0.72 on an A100.
  double simt_fp32_gemm_share() const {
    const int sm = sm_version();
    return sm == 86 || sm == 89 ? 0.5 : 1.0;
  }
  bool has_math(const std::string& math) const;
  double peak_flops(const std::string& math) const;  // FLOP/s, 0 when absent
  double memory_bytes() const { return memory_gib * 1073741824.0; }
  double bandwidth_bytes_per_s() const { return memory_bandwidth_gbs * 1e9; }
};

struct FabricSpec {
  std::string id, name, source;
  double per_gpu_bandwidth_gbs = 0;   // one NIC (share) per GPU
  double per_node_bandwidth_gbs = 0;  // NICs shared by all GPUs of a node
  double latency_us = 5;
  // Bandwidth one node can push into the fabric, GB/s.
  double node_bandwidth_gbs(int gpus_per_node) const {
    return per_node_bandwidth_gbs > 0 ? per_node_bandwidth_gbs : per_gpu_bandwidth_gbs * gpus_per_node;
  }
};

// Loads lazily: a lookup by id parses just configs/<kind>/<id>.yaml (a CLI call needs one GPU, not
// the whole catalog); an alias or a listing parses every file once.
// Safe to share between threads (a search's share one Predictor): every call holds the catalog's
// lock, and a spec once added never moves or changes.
template <typename Spec>
class Catalog {
 public:
  using Parser = Spec (*)(const std::string& path);
  Catalog() = default;
  // `list_kind`: the `ptp-predict --list` kind of this catalog ("gpus"), named by the error of an id
  // it lacks; "" names none.
  Catalog(std::string dir, Parser parser, std::string kind_name, std::string list_kind = "");
  void add(Spec spec, const std::string& origin) const;
  const Spec* find(const std::string& id_or_alias) const;
  // Throws InputError "unknown <kind> 'x' (did you mean ...)", the ids of the entries whose id or
  // alias is close; when none is, how to add the entry (suggest.hpp). `where` prefixes the message.
  const Spec& get(const std::string& id_or_alias, const std::string& where) const;
  std::vector<std::string> ids() const;
  const std::deque<Spec>& all() const;
  std::string kind, list_kind;

 private:
  void load_file(const std::string& path) const;
  void load_all() const;
  std::string dir_;
  Parser parser_ = nullptr;
  std::shared_ptr<std::recursive_mutex> lock_ = std::make_shared<std::recursive_mutex>();
  mutable bool all_loaded_ = false;
  mutable std::set<std::string> loaded_files_;
  mutable std::deque<Spec> specs_;  // deque: pointers handed out stay valid as specs are added
  mutable std::map<std::string, std::size_t> by_key_;  // lower-cased id and aliases
};

using GpuCatalog = Catalog<GpuSpec>;
using FabricCatalog = Catalog<FabricSpec>;

GpuSpec parse_gpu_spec(const std::string& path);
FabricSpec parse_fabric_spec(const std::string& path);
// The same from an already loaded document (its file() is the path the id must match).
class YamlReader;
GpuSpec parse_gpu_spec(const YamlReader& doc);
FabricSpec parse_fabric_spec(const YamlReader& doc);
// A GPU file's `price:` mapping; errors name the file, line:column and key.
GpuPrice parse_gpu_price(const YamlReader& price);
GpuCatalog load_gpu_catalog(const std::string& dir);
FabricCatalog load_fabric_catalog(const std::string& dir);

// configs/ root: $PTP_CONFIG_DIR, else the source tree's configs/ compiled in, else next to the binary.
std::string config_root();

}  // namespace ptp::vocab
