#pragma once
// A trained XGBoost booster flattened into plain arrays, so ptp-predict answers without XGBoost:
// loading three UBJ boosters through XGBoost (and linking it, with OpenMP) was most of a learned
// CLI call, while walking a few hundred trees is microseconds. ptp-train writes one `<level>.trees`
// file per booster; tests/train/test_tree_ensemble.cpp proves the predictions equal XGBoost's.
//
// File format (little-endian, version 1):
//   header, 32 bytes: char magic[8] = "PTPTREES", u32 version = 1, u32 num_features,
//                     u32 num_trees, u32 num_nodes, f32 base_margin, u32 transform (0: identity)
//   u32 first_node[num_trees]   index of each tree's root; tree t owns [first_node[t], first_node[t+1])
//   node[num_nodes], 16 bytes each:
//     u32 feature   split feature, bit 31 set: a missing (NaN) value goes left; 0xFFFFFFFF: leaf
//     f32 value     split threshold (go left when float(x) < value), or the leaf value
//     i32 left, right   absolute node indices inside the tree, after the node itself (leaf: -1)
// The file's integrity is the bundle's business (its SHA-256 is in manifest.json); parse() still
// checks every index, so a file that passes the checksum but is malformed is refused, not walked.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ptp/predict/learned/dense_matrix.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

inline constexpr std::uint32_t kTreeFileVersion = 1;

class TreeEnsemble {
 public:
  struct Node {
    std::uint32_t feature = kLeaf;
    float value = 0;
    std::int32_t left = -1, right = -1;
  };
  static constexpr std::uint32_t kLeaf = 0xFFFFFFFFu;
  static constexpr std::uint32_t kDefaultLeft = 0x80000000u;

  // The `.trees` file bytes back into an ensemble (kept as they are: walked in place, not copied);
  // throws a one-line InputError naming `origin`. The second form keeps `data` alive (a mapping of
  // the file, say) for as long as any copy of the ensemble.
  static TreeEnsemble parse(std::string bytes, const std::string& origin);
  static TreeEnsemble parse(std::shared_ptr<const char> data, std::size_t size, const std::string& origin);
  std::string serialize() const { return std::string(data_.get(), size_); }
  // The `.trees` file bytes for these tables (first_node and nodes as the format above lays them out).
  // Public for ptp::train's XGBoost flattener (ptp/train/flatten_xgboost.hpp), which builds the
  // tables from a booster; ptp-predict itself only parses files.
  static std::string encode(std::uint32_t num_features, float base_margin, const std::vector<std::uint32_t>& first_node,
                            const std::vector<Node>& nodes);

  // Same float arithmetic as XGBoost 1.7's CPU predictor: the margin starts at base_margin and adds
  // each tree's leaf in tree order, in float.
  float predict_one(const float* row) const;
  float predict_one(const std::vector<float>& row) const { return predict_one(row.data()); }
  std::vector<float> predict(const DenseMatrix& x) const;

  std::size_t num_features() const { return num_features_; }
  std::size_t num_trees() const { return num_trees_; }
  bool empty() const { return num_trees_ == 0; }

 private:
  std::uint32_t num_features_ = 0, num_trees_ = 0, num_nodes_ = 0;
  float base_margin_ = 0;
  std::shared_ptr<const char> data_;  // the file's bytes (immutable, shared by copies); tables are read
  std::size_t size_ = 0;              // from them with memcpy (any alignment)
  std::uint32_t first_node(std::uint32_t tree) const;
  Node node(std::uint32_t index) const;
};

}  // namespace ptp::predict
