#pragma once
// Row-major float rows: what the boosters train on and the tree ensembles predict.
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

struct DenseMatrix {
  std::size_t rows = 0, cols = 0;
  std::vector<float> values;  // row-major
  void add_row(const std::vector<float>& row) {
    if (cols == 0) cols = row.size();
    if (row.size() != cols) throw std::logic_error("feature row width mismatch");
    values.insert(values.end(), row.begin(), row.end());
    ++rows;
  }
  std::vector<float> row(std::size_t i) const {
    return {values.begin() + static_cast<long>(i * cols), values.begin() + static_cast<long>((i + 1) * cols)};
  }
  DenseMatrix select(const std::vector<std::size_t>& idx) const {
    DenseMatrix out;
    out.cols = cols;
    out.rows = idx.size();
    out.values.reserve(idx.size() * cols);
    for (auto i : idx)
      out.values.insert(out.values.end(), values.begin() + static_cast<long>(i * cols), values.begin() + static_cast<long>((i + 1) * cols));
    return out;
  }
};

}  // namespace ptp::predict
