#include "ptp/vocab/hardware.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "ptp/vocab/error.hpp"
#include "ptp/vocab/suggest.hpp"
#include "ptp/vocab/yaml_reader.hpp"

namespace fs = std::filesystem;

namespace ptp::vocab {

namespace {
std::vector<std::string> yaml_files(const std::string& dir);
}  // namespace

bool GpuSpec::has_math(const std::string& math) const {
  auto it = peak_tflops.find(math);
  return it != peak_tflops.end() && it->second > 0;
}

double GpuSpec::peak_flops(const std::string& math) const {
  auto it = peak_tflops.find(math);
  return it == peak_tflops.end() ? 0.0 : it->second * 1e12;
}

template <typename Spec>
Catalog<Spec>::Catalog(std::string dir, Parser parser, std::string kind_name, std::string list_kind_name)
    : kind(std::move(kind_name)), list_kind(std::move(list_kind_name)), dir_(std::move(dir)), parser_(parser) {
  std::error_code ec;
  if (!fs::is_directory(dir_, ec)) throw InputError(dir_, 0, 0, "", "catalog directory not found");
}

template <typename Spec>
void Catalog<Spec>::add(Spec spec, const std::string& origin) const {
  const std::lock_guard<std::recursive_mutex> hold(*lock_);
  std::vector<std::string> keys{spec.id};
  if constexpr (std::is_same_v<Spec, GpuSpec>) keys.insert(keys.end(), spec.aliases.begin(), spec.aliases.end());
  for (const auto& k : keys) {
    auto lk = to_lower(k);
    if (by_key_.count(lk))
      throw InputError(origin, 0, 0, "", "id or alias '" + k + "' is already used by " + specs_[by_key_[lk]].id);
  }
  specs_.push_back(std::move(spec));
  for (const auto& k : keys) by_key_[to_lower(k)] = specs_.size() - 1;
}

template <typename Spec>
void Catalog<Spec>::load_file(const std::string& path) const {
  if (!parser_ || !loaded_files_.insert(path).second) return;
  add(parser_(path), path);
}

template <typename Spec>
void Catalog<Spec>::load_all() const {
  if (all_loaded_ || !parser_) return;
  for (const auto& f : yaml_files(dir_)) load_file(f);
  all_loaded_ = true;
}

template <typename Spec>
const Spec* Catalog<Spec>::find(const std::string& id_or_alias) const {
  const std::lock_guard<std::recursive_mutex> hold(*lock_);
  const std::string key = to_lower(id_or_alias);
  if (auto it = by_key_.find(key); it != by_key_.end()) return &specs_[it->second];
  if (all_loaded_ || !parser_) return nullptr;
  // Ids are file names: try the one file before reading the whole catalog for an alias.
  const bool plain = !key.empty() && key.find_first_of("/\\") == std::string::npos && key.size() < 200;
  std::error_code ec;
  const std::string path = (fs::path(dir_) / (id_or_alias + ".yaml")).string();
  if (plain && fs::is_regular_file(path, ec)) load_file(path);
  if (auto it = by_key_.find(key); it != by_key_.end()) return &specs_[it->second];
  load_all();
  auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : &specs_[it->second];
}

template <typename Spec>
const Spec& Catalog<Spec>::get(const std::string& id_or_alias, const std::string& where) const {
  if (const Spec* s = find(id_or_alias)) return *s;
  // Aliases are matched too (h100x is one slip from the alias H100), and their entries' ids suggested.
  std::vector<std::string> names;
  std::map<std::string, std::string> id_of;
  const std::lock_guard<std::recursive_mutex> hold(*lock_);
  for (const auto& s : all()) {
    names.push_back(s.id);
    id_of[s.id] = s.id;
    if constexpr (std::is_same_v<Spec, GpuSpec>)
      for (const auto& a : s.aliases) {
        names.push_back(a);
        id_of[a] = s.id;
      }
  }
  std::vector<std::string> near;
  for (const auto& n : nearest_names(id_or_alias, names, names.size())) {
    if (std::find(near.begin(), near.end(), id_of[n]) == near.end()) near.push_back(id_of[n]);
    if (near.size() == 3) break;
  }
  const std::string hint = !near.empty() || list_kind.empty() ? did_you_mean_list(near)
                                                             : add_catalog_entry_hint(id_or_alias, dir_, list_kind);
  throw InputError(where + "unknown " + kind + " '" + id_or_alias + "'" + hint);
}

template <typename Spec>
std::vector<std::string> Catalog<Spec>::ids() const {
  const std::lock_guard<std::recursive_mutex> hold(*lock_);
  load_all();
  std::vector<std::string> out;
  for (const auto& s : specs_) out.push_back(s.id);
  return out;
}

template <typename Spec>
const std::deque<Spec>& Catalog<Spec>::all() const {
  const std::lock_guard<std::recursive_mutex> hold(*lock_);
  load_all();
  return specs_;
}

template class Catalog<GpuSpec>;
template class Catalog<FabricSpec>;

namespace {
std::string stem_of(const std::string& path) { return fs::path(path).stem().string(); }

void check_id_matches_file(const YamlReader& doc, const std::string& id, const std::string& path) {
  if (id != stem_of(path)) doc.child("id").fail("id '" + id + "' must equal the file name '" + stem_of(path) + "'");
}

std::vector<std::string> yaml_files(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir, 0, 0, "", "catalog directory not found");
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}
}  // namespace

GpuSpec parse_gpu_spec(const std::string& path) { return parse_gpu_spec(YamlReader::load_file(path)); }

std::string derived_min_power_limit_rule() {
  char b[32];
  std::snprintf(b, sizeof b, "%.2g x TDP", kDerivedMinPowerLimitShareOfTdp);
  return b;
}

GpuSpec parse_gpu_spec(const YamlReader& doc) {
  const std::string& path = doc.file();
  doc.check_keys({"id", "name", "aliases", "architecture", "chip", "compute_capability", "form_factor", "sms",
                  "boost_clock_mhz", "memory_gib", "memory_type", "memory_bandwidth_gbs", "l2_cache_mb", "tdp_w",
                  "idle_w", "power_limit_min_w", "power_limit_max_w", "default_power_limit_w", "peak_tflops", "intra_node", "pcie_gen", "default_inter_node", "launch_year", "price", "source", "notes"});
  GpuSpec g;
  g.id = doc.get_string("id");
  check_id_matches_file(doc, g.id, path);
  g.name = doc.get_string("name");
  if (auto a = doc.optional_child("aliases")) {
    for (std::size_t i = 0; i < a->size(); ++i) g.aliases.push_back(a->element(i).as_string());
  }
  g.architecture = doc.get_string("architecture");
  g.chip = doc.get_string("chip", "");
  g.compute_capability = doc.get_number("compute_capability", 3.0, 20.0);
  g.form_factor = doc.get_string("form_factor", "");
  g.sms = static_cast<int>(doc.get_int("sms", 1, 1000));
  g.boost_clock_mhz = doc.get_number("boost_clock_mhz", 100, 5000);
  g.memory_gib = doc.get_number("memory_gib", 0.5, 10000);
  g.memory_type = doc.get_string("memory_type", "");
  g.memory_bandwidth_gbs = doc.get_number("memory_bandwidth_gbs", 10, 100000);
  g.l2_cache_mb = doc.get_number("l2_cache_mb", 0, 1000, 0);
  g.tdp_w = doc.get_number("tdp_w", 0, 5000, 0);
  g.idle_w = doc.get_number("idle_w", 1, 5000, 0);
  g.power_limit_min_w = doc.get_number("power_limit_min_w", 1, 5000, 0);
  g.power_limit_max_w = doc.get_number("power_limit_max_w", 1, 5000, 0);
  g.default_power_limit_w = doc.get_number("default_power_limit_w", 1, 5000, 0);
  // The power model needs idle < min cap <= max cap <= TDP-scale values that agree with each other.
  if (g.idle_w > 0 && g.tdp_w > 0 && g.idle_w >= g.tdp_w) doc.child("idle_w").fail("must be below tdp_w");
  if (g.power_limit_max_w > 0 && g.power_limit_min_w > g.power_limit_max_w)
    doc.child("power_limit_min_w").fail("must not exceed power_limit_max_w");
  if (g.power_limit_min_w > 0 && g.tdp_w > 0 && g.power_limit_max_w <= 0 && g.power_limit_min_w > g.tdp_w)
    doc.child("power_limit_min_w").fail("must not exceed tdp_w (the default maximum)");
  if (g.default_power_limit_w > 0) {
    if (!(g.tdp_w > 0)) doc.child("default_power_limit_w").fail("needs tdp_w (the cap is modelled relative to it)");
    const double hi = g.power_limit_max_w > 0 ? g.power_limit_max_w : g.tdp_w;
    const double lo = g.power_limit_min_w > 0 ? g.power_limit_min_w : kDerivedMinPowerLimitShareOfTdp * g.tdp_w;
    if (g.default_power_limit_w > hi || g.default_power_limit_w < lo)
      doc.child("default_power_limit_w")
          .fail("must lie in the power-limit range (power_limit_min_w, else " + derived_min_power_limit_rule() +
                ", .. power_limit_max_w, else tdp_w)");
  }
  auto peaks = doc.child("peak_tflops");
  peaks.expect_map();
  for (const auto& key : peaks.keys()) g.peak_tflops[key] = peaks.get_number(key, 0, 1e6);
  if (!g.has_math("fp32")) peaks.fail("fp32 peak is required");
  auto intra = doc.child("intra_node");
  intra.check_keys({"kind", "bandwidth_gbs", "max_gpus_per_node", "switched"});
  g.intra_kind = intra.get_string("kind");
  g.intra_bandwidth_gbs = intra.get_number("bandwidth_gbs", 0.1, 1e5);
  g.max_gpus_per_node = static_cast<int>(intra.get_int("max_gpus_per_node", 1, 1024, 8));
  g.intra_switched = intra.get_bool("switched", false);
  g.pcie_gen = static_cast<int>(doc.get_int("pcie_gen", 1, 10, 3));
  g.default_inter_node = doc.get_string("default_inter_node", "eth-100");
  g.launch_year = static_cast<int>(doc.get_int("launch_year", 1990, 2100, 0));
  g.source = doc.get_string("source", "");
  if (auto price = doc.optional_child("price")) g.price = parse_gpu_price(*price);
  return g;
}

// price: {usd_per_gpu_hour, provider, source, as_of}. Every part is required: a price nobody can trace
// to a page and a date is a guess. The bound only catches unit mistakes (cents, per-instance prices).
GpuPrice parse_gpu_price(const YamlReader& price) {
  if (!price.is_map()) price.fail("expected a mapping {usd_per_gpu_hour, provider, source, as_of}");
  price.check_keys({"usd_per_gpu_hour", "provider", "source", "as_of"});
  GpuPrice out;
  out.usd_per_gpu_hour = price.get_number("usd_per_gpu_hour", 0.001, 1000);
  out.provider = price.get_string("provider");
  out.source = price.get_string("source");
  for (const char* key : {"provider", "source"})
    if (price.get_string(key).empty()) price.child(key).fail("must not be empty");
  const auto as_of = price.child("as_of");
  out.as_of = as_of.as_string();
  auto digits = [&](std::size_t from, std::size_t n) {
    for (std::size_t i = from; i < from + n; ++i)
      if (i >= out.as_of.size() || out.as_of[i] < '0' || out.as_of[i] > '9') return false;
    return true;
  };
  const bool month = out.as_of.size() == 7 && digits(0, 4) && out.as_of[4] == '-' && digits(5, 2);
  const bool day = out.as_of.size() == 10 && digits(0, 4) && out.as_of[4] == '-' && digits(5, 2) &&
                   out.as_of[7] == '-' && digits(8, 2);
  if (!month && !day) as_of.fail("expected a date YYYY-MM-DD or YYYY-MM, got '" + out.as_of + "'");
  return out;
}

FabricSpec parse_fabric_spec(const std::string& path) { return parse_fabric_spec(YamlReader::load_file(path)); }

FabricSpec parse_fabric_spec(const YamlReader& doc) {
  const std::string& path = doc.file();
  doc.check_keys({"id", "name", "per_gpu_bandwidth_gbs", "per_node_bandwidth_gbs", "latency_us", "source", "notes"});
  FabricSpec f;
  f.id = doc.get_string("id");
  check_id_matches_file(doc, f.id, path);
  f.name = doc.get_string("name", f.id);
  if (doc.has("per_gpu_bandwidth_gbs") == doc.has("per_node_bandwidth_gbs"))
    doc.fail("give exactly one of per_gpu_bandwidth_gbs and per_node_bandwidth_gbs");
  f.per_gpu_bandwidth_gbs = doc.get_number("per_gpu_bandwidth_gbs", 0.01, 1e5, 0);
  f.per_node_bandwidth_gbs = doc.get_number("per_node_bandwidth_gbs", 0.01, 1e5, 0);
  f.latency_us = doc.get_number("latency_us", 0, 1e4, 5);
  f.source = doc.get_string("source", "");
  return f;
}

GpuCatalog load_gpu_catalog(const std::string& dir) { return GpuCatalog(dir, parse_gpu_spec, "GPU", "gpus"); }

FabricCatalog load_fabric_catalog(const std::string& dir) { return FabricCatalog(dir, parse_fabric_spec, "fabric", "fabrics"); }

std::string config_root() {
  if (const char* env = std::getenv("PTP_CONFIG_DIR"); env && *env) return env;
  std::error_code ec;
#ifdef PTP_SOURCE_CONFIG_DIR
  if (fs::is_directory(PTP_SOURCE_CONFIG_DIR, ec)) return PTP_SOURCE_CONFIG_DIR;
#endif
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (auto p = exe.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
      if (fs::is_directory(p / "configs" / "gpus", ec)) return (p / "configs").string();
      if (fs::is_directory(p / "share" / "ptp" / "configs", ec)) return (p / "share" / "ptp" / "configs").string();
    }
  }
  return "configs";
}

}  // namespace ptp::vocab
