#include "ptp/predict/catalog_listing.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "ptp/predict/model_zoo.hpp"
#include "ptp/vocab/enum_names.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/hardware.hpp"
#include "ptp/vocab/precision.hpp"

namespace fs = std::filesystem;

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

std::string number(double v, int significant) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*g", significant, v);
  return text;
}

std::string dollars(double v) {
  char text[48];
  std::snprintf(text, sizeof text, "$%.2f", v);
  return text;
}

// Parameters in billions, no exponent, about three significant digits: 1026, 70.6, 8.03, 0.335, 0.026, 0.0053.
std::string billions(double params) {
  const double b = params / 1e9;
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", b >= 100 ? 0 : b >= 10 ? 1 : b >= 1 ? 2 : b >= 0.01 ? 3 : 4, b);
  return text;
}

// Rows of cells as lines: every column but the last padded to its widest cell (two spaces apart),
// columns named in `right` aligned right (numbers).
std::vector<std::string> aligned(const std::vector<std::vector<std::string>>& rows, const std::set<std::size_t>& right = {}) {
  std::vector<std::size_t> width;
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.resize(c + 1, 0);
      width[c] = std::max(width[c], r[c].size());
    }
  std::vector<std::string> out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) {
      const bool last = c + 1 == r.size();
      const std::string pad(width[c] - r[c].size(), ' ');
      if (c) line += "  ";
      line += right.count(c) ? pad + r[c] : last ? r[c] : r[c] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out.push_back(line);
  }
  return out;
}

template <class Spec>
std::vector<const Spec*> sorted_by_id(const std::deque<Spec>& all) {
  std::vector<const Spec*> out;
  for (const auto& s : all) out.push_back(&s);
  std::sort(out.begin(), out.end(), [](const Spec* a, const Spec* b) { return a->id < b->id; });
  return out;
}

CatalogListing list_gpus(const std::string& config_dir) {
  const GpuCatalog gpus = load_gpu_catalog(config_dir + "/gpus");
  std::vector<std::vector<std::string>> rows;
  for (const GpuSpec* g : sorted_by_id(gpus.all())) {
    // The dense peaks of the math modes precisions compute in (not fp16_nontensor and the like).
    std::string peaks;
    for (const char* math : {"fp32", "tf32", "fp16", "bf16", "fp8", "fp4"})
      if (g->has_math(math))
        peaks += (peaks.empty() ? "" : ", ") + std::string(math) + " " + number(g->peak_tflops.at(math), 5);
    const std::string price = g->price.known()
                                  ? dollars(g->price.usd_per_gpu_hour) + "/GPU-h (" + g->price.provider + ", " +
                                        g->price.as_of + ")"
                                  : "no catalog price";
    rows.push_back({g->id, number(g->memory_gib, 4) + " GiB", price, "dense TFLOP/s: " + peaks});
  }
  return {aligned(rows, {1}), ""};
}

CatalogListing list_models(const std::string& config_dir) {
  const std::string dir = config_dir + "/models";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir, 0, 0, "", "catalog directory not found");
  std::vector<std::vector<std::string>> rows;
  for (const auto& id : zoo_ids(dir)) {
    const ModelDesc m = load_model(id, dir);
    // Parameters as the predictor counts them: the model's workload at one sample (a parameter count
    // depends on no batch; 2048 only stands in for a sequence model's required seq_len).
    std::string params;
    try {
      BuildContext ctx;
      ctx.batch = 1;
      ctx.seq_len = 2048;
      params = billions(build_workload(m, ctx).params()) + " B params";
    } catch (const InputError&) {
      params = "? B params";
    }
    rows.push_back({m.id, params, m.workload_kind, m.description});
  }
  return {aligned(rows, {1}), ""};
}

CatalogListing list_fabrics(const std::string& config_dir) {
  const FabricCatalog fabrics = load_fabric_catalog(config_dir + "/fabrics");
  std::vector<std::vector<std::string>> rows;
  for (const FabricSpec* f : sorted_by_id(fabrics.all())) {
    const std::string bandwidth = f->per_gpu_bandwidth_gbs > 0 ? number(f->per_gpu_bandwidth_gbs, 4) + " GB/s per GPU"
                                                               : number(f->per_node_bandwidth_gbs, 4) + " GB/s per node";
    rows.push_back({f->id, bandwidth, number(f->latency_us, 3) + " us", f->name});
  }
  return {aligned(rows, {1, 2}), ""};
}

CatalogListing list_codebases(const std::string& bundle_dir) {
  const std::string allowed = "a job may name any other codebase (codebase: is free text); it gets the typical codebase's "
                              "correction and the unknown-codebase band";
  if (bundle_dir.empty()) return {{}, "no learned bundle is used, so no codebase has runs; " + allowed};
  const std::string path = (fs::path(bundle_dir) / "manifest.json").string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, 0, "", "cannot read the bundle's manifest");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json manifest;
  try {
    manifest = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, 0, 0, "", std::string("not JSON: ") + e.what());
  }
  if (!manifest.is_object() || !manifest.contains("codebase_offsets") || !manifest["codebase_offsets"].is_object())
    throw InputError(path, 0, 0, "codebase_offsets", "missing: the bundle names no codebase");
  // Which precisions each codebase's runs trained (domain.precision_codebases, where the bundle has it).
  std::map<std::string, std::set<std::string>> precisions;
  if (manifest.contains("domain") && manifest["domain"].is_object() && manifest["domain"].contains("precision_codebases") &&
      manifest["domain"]["precision_codebases"].is_object())
    for (const auto& [precision, codebases] : manifest["domain"]["precision_codebases"].items())
      if (codebases.is_array())
        for (const auto& c : codebases)
          if (c.is_string()) precisions[c.get<std::string>()].insert(precision);
  std::vector<std::vector<std::string>> rows;
  for (const auto& [codebase, offset] : manifest["codebase_offsets"].items()) {
    (void)offset;
    std::string trained;
    for (const auto& p : precisions[codebase]) trained += (trained.empty() ? "" : ", ") + p;
    rows.push_back({codebase, trained.empty() ? "" : "precisions of its runs: " + trained});
  }
  std::sort(rows.begin(), rows.end());
  return {aligned(rows), "codebases the bundle " + bundle_dir + " has runs of; " + allowed};
}

CatalogListing list_precisions() {
  std::vector<const PrecisionPolicy*> table;
  for (const auto& p : precision_table()) table.push_back(&p);
  std::sort(table.begin(), table.end(), [](const auto* a, const auto* b) { return a->id < b->id; });
  std::vector<std::vector<std::string>> rows;
  for (const auto* p : table) {
    const int cc = p->min_compute_capability;
    const std::string needs = cc > 0 ? "sm_" + std::to_string(cc) + "+" : "any GPU";
    rows.push_back({p->id, needs, p->description});
  }
  return {aligned(rows), ""};
}

}  // namespace

const std::vector<std::string>& listing_kinds() {
  static const std::vector<std::string> kinds{"gpus", "models", "fabrics", "codebases", "precisions"};
  return kinds;
}

CatalogListing list_catalog(const std::string& kind, const std::string& config_dir, const std::string& bundle_dir) {
  if (kind == "gpus") return list_gpus(config_dir);
  if (kind == "models") return list_models(config_dir);
  if (kind == "fabrics") return list_fabrics(config_dir);
  if (kind == "codebases") return list_codebases(bundle_dir);
  if (kind == "precisions") return list_precisions();
  fail_unknown_name("--list", kind, listing_kinds());
}

}  // namespace ptp::predict
