#include "ptp/train/write_bundle.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ptp/predict/learned/sha256.hpp"
#include "ptp/train/flatten_xgboost.hpp"
#include "ptp/vocab/error.hpp"

namespace fs = std::filesystem;

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

void write_bundle(const std::string& dir, nlohmann::json manifest, const std::map<std::string, std::string>& files) {
  std::map<std::string, std::string> trees;  // flattened before anything is written: refusals leave no debris
  for (const auto& [key, text] : files) trees[key] = flatten_xgboost_ubj(text, key + ".ubj").serialize();
  const fs::path target(dir);
  const fs::path tmp = target.string() + ".tmp." + std::to_string(::getpid());
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  if (ec) throw InputError(dir, 0, 0, "", "cannot create bundle directory: " + ec.message());
  for (const auto& [key, text] : files) {
    const std::string name = key + ".ubj";
    manifest["files"][key] = {{"path", name}, {"sha256", sha256_hex(text)}};
    std::ofstream(tmp / name, std::ios::binary) << text;
    manifest["trees"][key] = {{"path", key + ".trees"}, {"sha256", sha256_hex(trees[key])}};
    std::ofstream(tmp / (key + ".trees"), std::ios::binary) << trees[key];
  }
  const std::string manifest_text = manifest.dump(2) + "\n";
  std::ofstream(tmp / "manifest.json", std::ios::binary) << manifest_text;
  std::ofstream(tmp / "CHECKSUM", std::ios::binary) << sha256_hex(manifest_text) << "\n";
  const fs::path old = target.string() + ".old." + std::to_string(::getpid());
  if (fs::exists(target, ec)) fs::rename(target, old, ec);
  fs::create_directories(target.parent_path().empty() ? "." : target.parent_path(), ec);
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    throw InputError(dir, 0, 0, "", "cannot move the new bundle into place");
  }
  fs::remove_all(old, ec);
}

}  // namespace ptp::train
