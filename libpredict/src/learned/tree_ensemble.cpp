#include "ptp/predict/learned/tree_ensemble.hpp"

#include <cmath>
#include <cstring>

#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

// The file is little-endian and read with memcpy; a big-endian host would need byte swaps here.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "tree files are read in host byte order");
static_assert(sizeof(TreeEnsemble::Node) == 16, "a node is 16 bytes in the file");

namespace {
constexpr char kMagic[8] = {'P', 'T', 'P', 'T', 'R', 'E', 'E', 'S'};
constexpr std::size_t kHeaderBytes = 32;

std::uint32_t u32_at(const char* b, std::size_t offset) {
  std::uint32_t v;
  std::memcpy(&v, b + offset, sizeof v);
  return v;
}
void put(std::string& out, const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); }
}  // namespace

std::uint32_t TreeEnsemble::first_node(std::uint32_t tree) const { return u32_at(data_.get(), kHeaderBytes + 4ull * tree); }

TreeEnsemble::Node TreeEnsemble::node(std::uint32_t index) const {
  Node n;
  std::memcpy(static_cast<void*>(&n), data_.get() + kHeaderBytes + 4ull * num_trees_ + sizeof(Node) * index, sizeof n);
  return n;
}

TreeEnsemble TreeEnsemble::parse(std::string bytes, const std::string& origin) {
  auto owner = std::make_shared<const std::string>(std::move(bytes));
  const std::size_t size = owner->size();
  return parse(std::shared_ptr<const char>(owner, owner->data()), size, origin);
}

TreeEnsemble TreeEnsemble::parse(std::shared_ptr<const char> data, std::size_t size, const std::string& origin) {
  const char* bytes = data.get();
  auto fail = [&](const std::string& problem) {
    throw InputError(origin, 0, 0, "", "not a valid flattened-tree file: " + problem + "; retrain the bundle");
  };
  if (size < kHeaderBytes) fail("truncated header (" + std::to_string(size) + " bytes)");
  if (std::memcmp(bytes, kMagic, sizeof kMagic) != 0) fail("wrong magic");
  const std::uint32_t version = u32_at(bytes, 8);
  if (version != kTreeFileVersion)
    fail("version " + std::to_string(version) + " but this ptp reads " + std::to_string(kTreeFileVersion));
  TreeEnsemble e;
  e.num_features_ = u32_at(bytes, 12);
  e.num_trees_ = u32_at(bytes, 16);
  e.num_nodes_ = u32_at(bytes, 20);
  std::memcpy(&e.base_margin_, bytes + 24, sizeof(float));
  const std::uint32_t transform = u32_at(bytes, 28);
  if (transform != 0) fail("unknown output transform " + std::to_string(transform));
  if (!std::isfinite(e.base_margin_)) fail("base margin is not finite");
  if (e.num_features_ == 0 || e.num_features_ >= kDefaultLeft) fail("bad feature count");
  const std::uint32_t trees = e.num_trees_, nodes = e.num_nodes_;
  if (trees > nodes) fail("more trees than nodes");
  // 64-bit: counts near 2^32 must not wrap into a size that matches a small file.
  const std::uint64_t expected = kHeaderBytes + 4ull * trees + 16ull * nodes;
  if (size != expected)
    fail(std::string(size < expected ? "truncated" : "trailing bytes") + ": " + std::to_string(size) +
         " bytes, the header describes " + std::to_string(expected));
  e.data_ = std::move(data);
  e.size_ = size;
  // Children after their parent and inside its tree: every walk ends at a leaf within the tree.
  for (std::uint32_t t = 0; t < trees; ++t) {
    const std::uint32_t begin = e.first_node(t), end = t + 1 < trees ? e.first_node(t + 1) : nodes;
    if ((t == 0 && begin != 0) || begin >= end || end > nodes) fail("tree " + std::to_string(t) + " has a bad node range");
    for (std::uint32_t i = begin; i < end; ++i) {
      const Node n = e.node(i);
      if (n.feature == kLeaf) {
        if (n.left != -1 || n.right != -1 || !std::isfinite(n.value))
          fail("node " + std::to_string(i) + " is a malformed leaf");
        continue;
      }
      const auto inside = [&](std::int32_t c) { return c > static_cast<std::int64_t>(i) && static_cast<std::uint32_t>(c) < end; };
      if ((n.feature & ~kDefaultLeft) >= e.num_features_ || !inside(n.left) || !inside(n.right) || std::isnan(n.value))
        fail("node " + std::to_string(i) + " is a malformed split");
    }
  }
  return e;
}

std::string TreeEnsemble::encode(std::uint32_t num_features, float base_margin, const std::vector<std::uint32_t>& first_node,
                                 const std::vector<Node>& nodes) {
  std::string out;
  out.reserve(kHeaderBytes + 4 * first_node.size() + sizeof(Node) * nodes.size());
  const std::uint32_t head[] = {kTreeFileVersion, num_features, static_cast<std::uint32_t>(first_node.size()),
                                static_cast<std::uint32_t>(nodes.size())};
  const std::uint32_t transform = 0;
  put(out, kMagic, sizeof kMagic);
  put(out, head, sizeof head);
  put(out, &base_margin, sizeof base_margin);
  put(out, &transform, sizeof transform);
  put(out, first_node.data(), 4 * first_node.size());
  put(out, nodes.data(), sizeof(Node) * nodes.size());
  return out;
}

float TreeEnsemble::predict_one(const float* row) const {
  float margin = base_margin_;
  const char* roots = data_.get() + kHeaderBytes;
  const char* nodes = roots + 4ull * num_trees_;
  for (std::uint32_t t = 0; t < num_trees_; ++t) {
    std::uint32_t i;
    std::memcpy(&i, roots + 4ull * t, sizeof i);
    Node n;
    for (;;) {
      std::memcpy(static_cast<void*>(&n), nodes + sizeof(Node) * i, sizeof n);
      if (n.feature == kLeaf) break;
      const float x = row[n.feature & ~kDefaultLeft];
      // XGBoost: a missing value takes the default direction, else left when x < threshold.
      const bool left = std::isnan(x) ? (n.feature & kDefaultLeft) != 0 : x < n.value;
      i = static_cast<std::uint32_t>(left ? n.left : n.right);
    }
    margin += n.value;
  }
  return margin;
}

std::vector<float> TreeEnsemble::predict(const DenseMatrix& x) const {
  if (x.rows && x.cols != num_features_)
    throw std::logic_error("tree ensemble expects " + std::to_string(num_features_) + " features, got " +
                           std::to_string(x.cols));
  std::vector<float> out(x.rows);
  for (std::size_t r = 0; r < x.rows; ++r) out[r] = predict_one(x.values.data() + r * x.cols);
  return out;
}

}  // namespace ptp::predict
