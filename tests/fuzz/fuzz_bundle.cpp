// Model bundle loading (ptp-predict --bundle DIR, models/default): the input is manifest.json,
// optionally followed by files, each after a line "--8<-- <key>" (a booster: aggregator, compute,
// communication) or "--8<-- <key>.trees" (its flattened trees, what ptp-predict reads). Keys without
// a part get a tiny booster of the right width trained at start-up, and its flattened trees. The
// bundle is written to a scratch directory with the file hashes and CHECKSUM made to match, so
// the fuzzer gets past the integrity checks into the manifest and tree parsing; then the bundle
// predicts a fixed job. (Checksum mismatches themselves are covered by tests/hostile/bundle/.)
// Most inputs also get this build's feature lists and a `trees` section when they have none, so
// stale seeds still reach the trees.

#include <filesystem>
#include <fstream>
#include <map>

#include "fuzz_common.hpp"
#include "ptp/predict/learned/bundle.hpp"
#include "ptp/predict/learned/features.hpp"
#include "ptp/predict/learned/sha256.hpp"
#include "ptp/predict/learned/tree_ensemble.hpp"
#include "ptp/train/booster.hpp"
#include "ptp/train/flatten_xgboost.hpp"

namespace {
namespace fs = std::filesystem;

std::string tiny_booster(std::size_t width) {
  ptp::predict::DenseMatrix x;
  std::vector<float> y;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < width; ++i) names.push_back("f" + std::to_string(i));
  for (int r = 0; r < 16; ++r) {
    std::vector<float> row(width);
    for (std::size_t i = 0; i < width; ++i) row[i] = static_cast<float>((r * 7 + static_cast<int>(i)) % 5);
    x.add_row(row);
    y.push_back(static_cast<float>(r % 3) * 0.1f);
  }
  ptp::train::BoosterParams p;
  p.rounds = 2;
  p.max_depth = 2;
  p.threads = 1;
  p.subsample = 1;
  p.colsample = 1;
  return ptp::train::Booster::train(x, y, names, p).save_ubj();
}

// Boosters by key, and their flattened trees by "<key>.trees".
const std::map<std::string, std::string>& default_parts() {
  static const std::map<std::string, std::string> b = [] {
    std::map<std::string, std::string> m = {{"aggregator", tiny_booster(ptp::predict::run_feature_names(false).size())},
                                            {"compute", tiny_booster(ptp::predict::op_feature_names().size())},
                                            {"communication", tiny_booster(ptp::predict::collective_feature_names().size())}};
    for (const char* key : {"aggregator", "compute", "communication"})
      m[std::string(key) + ".trees"] = ptp::train::flatten_xgboost_ubj(m[key], key).serialize();
    return m;
  }();
  return b;
}

const ptp::predict::ResolvedJob& fixed_job() {
  static const ptp::predict::ResolvedJob job = ptp::predict::resolve_job(
      ptp::predict::parse_job_spec(ptp::vocab::YamlReader::load_string(
          "model: bert-base\nprecision: amp_bf16\nbatch_size: 16\nseq_len: 128\n"
          "cluster: {gpu: a100-sxm4-80gb, num_gpus: 16, gpus_per_node: 8}\nrun: {steps: 100}\n",
          "fuzz-job.yaml")),
      ptp::fuzz::catalogs());
  return job;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptp::predict;
  using namespace ptp::train;
  static const fs::path dir = [] {
    const fs::path d = ptp::fuzz::scratch_path("fuzz-bundle");
    fs::create_directories(d);
    return d;
  }();
  (void)fixed_job();
  const std::string text = ptp::fuzz::text_of(data, size);

  // Split: manifest, then "--8<-- key\n" parts.
  std::string manifest_text = text;
  std::map<std::string, std::string> boosters = default_parts();
  const std::string mark = "\n--8<-- ";
  if (auto pos = text.find(mark); pos != std::string::npos) {
    manifest_text = text.substr(0, pos);
    while (pos != std::string::npos) {
      const auto key_end = text.find('\n', pos + mark.size());
      if (key_end == std::string::npos) break;
      const std::string key = text.substr(pos + mark.size(), key_end - pos - mark.size());
      const auto next = text.find(mark, key_end);
      boosters[key] = text.substr(key_end + 1, next == std::string::npos ? std::string::npos : next - key_end - 1);
      pos = next;
    }
  }

  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) fs::remove_all(e.path(), ec);
  // Make the hashes match: files.<key>.sha256 / trees.<key>.sha256 of the file written under its path.
  try {
    auto m = nlohmann::json::parse(manifest_text);
    // Most inputs get this build's feature lists (a fuzzer cannot guess 45 names); every fourth keeps
    // its own, for the schema check.
    if (m.is_object() && m.contains("features") && m["features"].is_object() && size % 4 != 0)
      m["features"] = {{"aggregator", run_feature_names(false)},
                       {"compute", op_feature_names()},
                       {"communication", collective_feature_names()}};
    // Every third input without a `trees` section keeps it missing, for the refusal of old bundles.
    if (m.is_object() && !m.contains("trees") && m.contains("files") && m["files"].is_object() && size % 3 != 0)
      for (const char* key : {"aggregator", "compute", "communication"})
        m["trees"][key] = {{"path", std::string(key) + ".trees"}};
    for (const char* section : {"files", "trees"}) {
      if (!m.is_object() || !m.contains(section) || !m[section].is_object()) continue;
      const std::string suffix = std::string(section) == "trees" ? ".trees" : "";
      for (auto& [key, entry] : m[section].items()) {
        if (!entry.is_object() || !entry.contains("path") || !entry["path"].is_string()) continue;
        const std::string name = entry["path"].get<std::string>();
        const auto b = boosters.find(key + suffix);
        const std::string bytes = b == boosters.end() ? std::string() : b->second;
        entry["sha256"] = sha256_hex(bytes);
        if (!name.empty() && name.size() < 64 && name.find('/') == std::string::npos && name != "." && name != ".." &&
            name != "manifest.json" && name != "CHECKSUM")
          std::ofstream(dir / name, std::ios::binary) << bytes;
      }
    }
    if (m.is_object()) manifest_text = m.dump(1);
  } catch (const nlohmann::json::exception&) {
  }
  std::ofstream(dir / "manifest.json", std::ios::binary) << manifest_text;
  std::ofstream(dir / "CHECKSUM", std::ios::binary) << sha256_hex(manifest_text) << "\n";

  ptp::fuzz::expect_clean("fuzz-bundle", [&] {
    const LearnedBundle bundle = LearnedBundle::load(dir.string());
    const Prediction p = bundle.predict(fixed_job(), AnalyticalConstants{});
    ptp::fuzz::check_prediction(p);
    ptp::fuzz::render_all(p);
  });
  return 0;
}
