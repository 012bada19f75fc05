// LearnedBundle::load: a bundle directory read and checked field by field, so that a damaged or
// foreign bundle is refused with the file and field at fault before any prediction uses it.
#include "ptp/predict/learned/bundle.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "manifest_reader.hpp"
#include "ptp/predict/learned/features.hpp"
#include "ptp/predict/learned/sha256.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/error.hpp"

namespace fs = std::filesystem;

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {
std::string read_text(const std::string& path, std::size_t max_bytes = 64u << 20) {
  if (!fs::exists(path)) throw InputError(path, 0, 0, "", "cannot read bundle file");
  return read_file_bounded(path, max_bytes);  // bounded: a booster that is /dev/zero must not hang
}

// A regular file mapped read-only in one call with its pages populated: the trees are read in
// place (no copy into fresh heap pages, each of which faults). Anything else (a device, a pipe, an
// empty file) goes through the bounded read.
std::pair<std::shared_ptr<const char>, std::size_t> map_bounded(const std::string& path, std::size_t max_bytes) {
  struct stat st {};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      static_cast<std::uint64_t>(st.st_size) <= max_bytes) {
    const auto size = static_cast<std::size_t>(st.st_size);
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    ::close(fd);
    if (p != MAP_FAILED)
      return {std::shared_ptr<const char>(static_cast<const char*>(p), [size](const char* q) {
                ::munmap(const_cast<char*>(q), size);
              }),
              size};
  } else if (fd >= 0) {
    ::close(fd);
  }
  auto text = std::make_shared<const std::string>(read_text(path, max_bytes));
  return {std::shared_ptr<const char>(text, text->data()), text->size()};
}

void require(bool ok, const std::string& path, const std::string& field, const std::string& problem) {
  if (!ok) throw InputError(path, 0, 0, field, problem);
}

std::vector<std::string> names_in(const nlohmann::json& j) {
  std::vector<std::string> out;
  for (const auto& v : j) out.push_back(v.get<std::string>());
  return out;
}
}  // namespace

namespace {
std::atomic<std::size_t> loaded_bundles{0};
}  // namespace

std::size_t LearnedBundle::loads() { return loaded_bundles.load(); }

namespace {

// The schema and feature names this build reads; anything else is retrained, not guessed at.
void require_this_schema(const nlohmann::json& m, const std::string& manifest_path) {
  require(m.is_object(), manifest_path, "", "expected a JSON object");
  require(m.value("schema_version", -1) == kBundleSchemaVersion, manifest_path, "schema_version",
          "bundle schema " + std::to_string(m.value("schema_version", -1)) + " but this ptp reads " +
              std::to_string(kBundleSchemaVersion) + "; retrain with this ptp-train");
  const auto& fe = m.at("features");
  require(names_in(fe.at("aggregator")) == run_feature_names(false), manifest_path, "features.aggregator",
          "feature schema differs from this ptp build; retrain the bundle");
  require(names_in(fe.at("compute")) == op_feature_names(), manifest_path, "features.compute",
          "feature schema differs from this ptp build; retrain the bundle");
  require(names_in(fe.at("communication")) == collective_feature_names(), manifest_path, "features.communication",
          "feature schema differs from this ptp build; retrain the bundle");
}

// A file entry's name, which must be a plain file in the bundle.
std::string plain_file_name(const nlohmann::json& entry, const std::string& manifest_path, const std::string& field,
                            const std::string& what) {
  const std::string file = entry.at("path").get<std::string>();
  require(!file.empty() && file.find('/') == std::string::npos && file.find("..") == std::string::npos,
          manifest_path, field, what + " path must be a plain file name");
  entry.at("sha256").get<std::string>();
  return file;
}

// One level's flattened trees, checked against the manifest's checksum and feature count.
TreeEnsemble load_trees(const nlohmann::json& m, const std::string& dir, const std::string& manifest_path,
                        const std::string& key) {
  const auto& entry = m.at("trees").at(key);
  const std::string path = (fs::path(dir) / plain_file_name(entry, manifest_path, "trees." + key, "trees")).string();
  // 16 MiB: 1M nodes, some 60x the shipped bundle's largest level (compute, 15k); a larger file
  // (or /dev/zero) is refused from its size rather than read.
  const auto [data, size] = map_bounded(path, 16u << 20);
  require(sha256_hex(data.get(), size) == entry.at("sha256").get<std::string>(), path, "",
          "checksum mismatch with manifest.json: the trees file is corrupted or was replaced");
  TreeEnsemble trees = TreeEnsemble::parse(data, size, path);
  const std::size_t listed = m.at("features").at(key).size();
  require(trees.num_features() == listed, path, "",
          "trees expect " + std::to_string(trees.num_features()) + " features but manifest.json lists " +
              std::to_string(listed));
  return trees;
}

// The three levels: the aggregator, the op-time and the collective corrections.
void load_levels(LearnedBundle& b, const nlohmann::json& m, const std::string& dir, const std::string& manifest_path) {
  // The boosters are the training reference: ptp-predict does not read them, but their entries
  // must still name plain files in the bundle.
  for (const char* key : {"aggregator", "compute", "communication"})
    plain_file_name(m.at("files").at(key), manifest_path, std::string("files.") + key, "booster");
  require(m.contains("trees"), manifest_path, "trees",
          "no flattened trees: the bundle predates them; retrain it with this ptp-train");
  b.aggregator = load_trees(m, dir, manifest_path, "aggregator");
  std::set<std::string> maths;
  for (const auto& v : m.at("compute_maths")) maths.insert(v.get<std::string>());
  std::set<std::string> measured;  // optional: bundles before it shrink every learned op time
  if (m.contains("compute_measured"))
    for (const auto& v : m.at("compute_measured")) measured.insert(v.get<std::string>());
  b.compute = std::make_unique<LearnedOpModel>(load_trees(m, dir, manifest_path, "compute"), maths, measured);
  CollectiveReach reach;  // optional: bundles before it apply the correction at any scale
  if (m.contains("communication_reach")) {
    const auto& r = m.at("communication_reach");
    reach.max_ranks = r.at("max_ranks").get<int>();
    reach.max_nodes = r.at("max_nodes").get<int>();
    require(reach.max_ranks >= 1 && reach.max_nodes >= 1 && reach.max_nodes <= reach.max_ranks, manifest_path,
            "communication_reach", "expected max_ranks >= max_nodes >= 1");
  }
  b.communication = std::make_unique<LearnedCollectiveModel>(load_trees(m, dir, manifest_path, "communication"), reach);
}

// The 80 % band per workload kind, and its scale per kind.
void read_bands(LearnedBundle& b, const nlohmann::json& m, const std::string& manifest_path) {
  auto band = [&](const char* key) {
    const auto& q = m.at("interval").at(key);
    LearnedBundle::Band out{q.at("log_q_low").get<double>(), q.at("log_q_high").get<double>()};
    require(std::isfinite(out.log_q_low) && std::isfinite(out.log_q_high) && out.log_q_low <= out.log_q_high,
            manifest_path, std::string("interval.") + key, "invalid interval calibration");
    return out;
  };
  for (const char* key : kBandNames) b.bands[key] = band(key);
  // Optional: bundles before it had one band width for every workload kind.
  if (m.at("interval").contains("scale_by_kind")) {
    const auto& scales = m.at("interval").at("scale_by_kind");
    require(scales.is_object(), manifest_path, "interval.scale_by_kind", "expected {workload kind: band scale}");
    for (const auto& [kind, v] : scales.items()) {
      require(v.is_number() && v.get<double>() > 0 && v.get<double>() <= 10, manifest_path,
              "interval.scale_by_kind." + kind, "expected a band scale in (0, 10]");
      b.band_scale_by_kind[kind] = v.get<double>();
    }
  }
}

// What the bundle was trained on: precisions, GPUs, models, the codebases per precision and the
// run counts per GPU and precision.
void read_domain(LearnedBundle& b, const nlohmann::json& m, const std::string& manifest_path) {
  // describe_domain_gap and novelty_of read these at prediction time: check them here, where errors
  // are located.
  const auto& domain = m.at("domain");
  require(domain.is_object() && domain.at("precisions").is_array() && domain.at("gpus").is_array() &&
              domain.at("models").is_array() &&
              (!domain.contains("model_parallel") || domain["model_parallel"].is_boolean()),
          manifest_path, "domain", "expected {precisions: [...], gpus: [...], models: [...], model_parallel: true|false}");
  for (const auto& [key, into] : {std::pair{"precisions", &b.trained_precisions}, std::pair{"gpus", &b.trained_gpus},
                                  std::pair{"models", &b.trained_models}})
    for (const auto& v : domain.at(key)) into->insert(v.get<std::string>());
  if (domain.contains("precision_codebases")) {
    const auto& pc = domain.at("precision_codebases");
    require(pc.is_object(), manifest_path, "domain.precision_codebases", "expected {precision: [codebase, ...]}");
    for (const auto& [precision, list] : pc.items()) {
      require(list.is_array() && !list.empty(), manifest_path, "domain.precision_codebases." + precision,
              "expected a non-empty list of codebases");
      for (const auto& c : list) {
        require(c.is_string(), manifest_path, "domain.precision_codebases." + precision, "expected codebase names");
        b.precision_codebases[precision].insert(c.get<std::string>());
      }
    }
  }
  for (const auto& [key, into] : {std::pair{"gpu_runs", &b.gpu_runs}, std::pair{"precision_runs", &b.precision_runs},
                                  std::pair{"architecture_gpu_runs", &b.architecture_gpu_runs}}) {
    if (!domain.contains(key)) continue;
    const auto& counts = domain.at(key);
    require(counts.is_object(), manifest_path, std::string("domain.") + key, "expected {name: training runs}");
    for (const auto& [name, v] : counts.items()) {
      require(v.is_number_integer() && v.get<int>() > 0, manifest_path, std::string("domain.") + key + "." + name,
              "expected a positive run count");
      (*into)[name] = v.get<int>();
    }
  }
}

// The codebase offsets and how far the learned correction is trusted away from its data.
void read_offsets_and_shrinkage(LearnedBundle& b, const nlohmann::json& m, const std::string& manifest_path) {
  const auto& offsets = m.at("codebase_offsets");
  require(offsets.is_object(), manifest_path, "codebase_offsets", "expected {codebase: log offset}");
  for (const auto& [name, v] : offsets.items()) {
    require(v.is_number() && std::isfinite(v.get<double>()) && std::fabs(v.get<double>()) < 5, manifest_path,
            "codebase_offsets." + name, "expected a finite log offset within +-5");
    b.codebase_offsets[name] = v.get<double>();
  }
  auto shrinkage_at = [&](const nlohmann::json& sh, const std::string& key) {
    // level_kept: optional (bundles before it kept the whole level).
    const Shrinkage out{sh.at("max_share").get<double>(), sh.at("half_support_runs").get<double>(),
                        sh.at("extrapolating_share").get<double>(), sh.value("level_kept", 1.0)};
    for (double v : {out.max_share, out.extrapolating_share, out.level_kept})
      require(v >= 0 && v <= 1, manifest_path, "shrinkage." + key, "expected shares between 0 and 1");
    require(out.half_support_runs >= 0 && std::isfinite(out.half_support_runs), manifest_path,
            "shrinkage." + key + ".half_support_runs", "expected a non-negative run count");
    return out;
  };
  const auto& sh = m.at("shrinkage");
  b.shrinkage.known = shrinkage_at(sh.at("known_codebase"), "known_codebase");
  b.shrinkage.unknown = shrinkage_at(sh.at("unknown_codebase"), "unknown_codebase");
  // Optional: bundles before it shrank every workload kind alike.
  if (sh.contains("unknown_codebase_by_kind")) {
    const auto& by_kind = sh.at("unknown_codebase_by_kind");
    require(by_kind.is_object(), manifest_path, "shrinkage.unknown_codebase_by_kind",
            "expected {workload kind: shrinkage}");
    for (const auto& [kind, one] : by_kind.items())
      b.shrinkage.unknown_by_kind[kind] = shrinkage_at(one, "unknown_codebase_by_kind." + kind);
  }
  // Optional: bundles before it kept the whole correction on thin GPUs and precisions.
  if (sh.contains("thin_support")) {
    require(!b.gpu_runs.empty() && !b.precision_runs.empty() && !b.architecture_gpu_runs.empty(), manifest_path,
            "shrinkage.thin_support", "needs domain.gpu_runs, domain.architecture_gpu_runs and domain.precision_runs");
    b.shrinkage.thin = ThinSupportShares::from_json(sh.at("thin_support"), manifest_path);
  }
  b.typical_level = m.at("shrinkage").value("typical_level", 0.0);
  require(std::isfinite(b.typical_level) && std::fabs(b.typical_level) < 5, manifest_path,
          "shrinkage.typical_level", "expected a finite log level within +-5");
}

}  // namespace

LearnedBundle LearnedBundle::load(const std::string& dir) {
  ++loaded_bundles;
  const std::string manifest_path = (fs::path(dir) / "manifest.json").string();
  const std::string checksum_path = (fs::path(dir) / "CHECKSUM").string();
  std::error_code ec;
  require(fs::is_directory(dir, ec), dir, "", "bundle directory not found");
  const auto [manifest_data, manifest_size] = map_bounded(manifest_path, 64u << 20);
  const std::string_view manifest_text(manifest_data.get(), manifest_size);
  std::string expected = read_text(checksum_path, 1024);
  while (!expected.empty() && std::isspace(static_cast<unsigned char>(expected.back()))) expected.pop_back();
  require(sha256_hex(manifest_text.data(), manifest_text.size()) == expected, manifest_path, "",
          "checksum mismatch with CHECKSUM: the bundle is corrupted or was edited");
  LearnedBundle b;
  b.dir_ = dir;
  b.checksum_ = expected;
  try {
    detail::ParsedManifest parsed = detail::parse_manifest(manifest_text);
    b.manifest_ = std::move(parsed.json);
    const auto& m = b.manifest_;
    require_this_schema(m, manifest_path);
    load_levels(b, m, dir, manifest_path);
    read_bands(b, m, manifest_path);
    read_domain(b, m, manifest_path);
    read_offsets_and_shrinkage(b, m, manifest_path);
    b.support = SupportSpace::from_json(m.at("support"), run_feature_names(false), manifest_path,
                                        parsed.points ? &*parsed.points : nullptr);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(manifest_path, 0, 0, "", std::string("malformed manifest: ") + e.what());
  }
  return b;
}

}  // namespace ptp::predict
