#pragma once
// Row-major float rows: what the boosters train on and the tree ensembles predict.
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace ptp {

struct DenseMatrix {
  std::size_t rows = 0, cols = 0;
  std::vector<float> values;  // row-major
  void add_row(const std::vector<float>& row) {
    if (cols == 0) cols = row.size();
    if (row.size() != cols) throw std::logic_error("feature row width mismatch");
    values.insert(values.end(), row.begin(), row.end());
    ++rows;
  }
};

}  // namespace ptp
