#pragma once
// The walk over a search space's configurations (search.cpp): the cross product of its axes, outer
// axes first by their nesting, with the values that follow the layout (virtual_pipeline under the
// pipeline depth, sequence_parallel under tensor parallelism) taken at each configuration's layout.
// Private to libpredict.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "ptp/predict/search.hpp"
#include "search_fields.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::detail {

// Walks the cross product of the axes (virtual_pipeline's values follow the pipeline depth).
class Enumerator {
 public:
  Enumerator(const SearchSpace& s, int blocks) : space_(s), blocks_(blocks), order_(s.axes.size()) {
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
      return search_field(s.axes[a].key).nesting < search_field(s.axes[b].key).nesting;
    });
  }

  // Number of configurations, for the limit and the counts.
  double count(const JobSpec& base) const {
    double n = 1;
    for (const auto& a : space_.axes) {
      if (a.per_pipeline) {  // pipeline x virtual_pipeline pairs
        n *= pairs(base, "parallelism.pipeline", [&](const JobSpec& j) { return virtual_pipeline_values(j, blocks_); });
      } else if (a.per_tensor) {  // tensor x sequence_parallel pairs
        n *= pairs(base, "parallelism.tensor", [&](const JobSpec& j) { return per_tensor_values(a, j); });
      } else if (!(a.key == "parallelism.pipeline" && has([](const SearchAxis& x) { return x.per_pipeline; })) &&
                 !(a.key == "parallelism.tensor" && has([](const SearchAxis& x) { return x.per_tensor; }))) {
        n *= static_cast<double>(a.values.size());
      }
    }
    return n;
  }

  // Calls f(settings) for every configuration.
  template <class F>
  void each(const JobSpec& base, F&& f) {
    // One value per axis, then the fixed overrides: values are assigned in place as the walk moves,
    // so a configuration costs no copy of its flags.
    std::vector<Override> settings(space_.axes.size());
    settings.insert(settings.end(), space_.fixed.begin(), space_.fixed.end());
    JobSpec job = base;
    for (const auto& ov : space_.fixed) search_field(ov.first).set(job, ov.second);
    walk(0, job, settings, f);
  }

 private:
  template <class P>
  bool has(P p) const {
    return std::any_of(space_.axes.begin(), space_.axes.end(), p);
  }

  // The values of an axis that follows the layout, at the layout of `job`.
  static std::vector<std::string> per_tensor_values(const SearchAxis& axis, const JobSpec& job) {
    return job.parallelism.tensor > 1 ? axis.values : std::vector<std::string>{"false"};
  }

  // Sum over the values of the axis `key` (the base's value when it is not searched) of the number
  // of values `dependent` takes there.
  template <class F>
  double pairs(const JobSpec& base, const std::string& key, F dependent) const {
    const auto& field = search_field(key);
    std::vector<std::string> values{field.get(base)};
    for (const auto& a : space_.axes)
      if (a.key == key) values = a.values;
    JobSpec j = base;
    double n = 0;
    for (const auto& v : values) {
      field.set(j, v);
      n += static_cast<double>(dependent(j).size());
    }
    return n;
  }

  template <class F>
  void walk(std::size_t depth, JobSpec& job, std::vector<Override>& settings, F& f) {
    if (depth == order_.size()) {
      f(std::as_const(job), std::as_const(settings));
      return;
    }
    const std::size_t i = order_[depth];  // settings stay in axis order
    const auto& axis = space_.axes[i];
    const auto& field = search_field(axis.key);
    const auto values = axis.per_pipeline ? virtual_pipeline_values(job, blocks_)
                        : axis.per_tensor ? per_tensor_values(axis, job)
                                          : axis.values;
    const JobSpec saved = job;
    settings[i].first = axis.key;
    for (const auto& v : values) {
      field.set(job, v);
      settings[i].second = v;
      walk(depth + 1, job, settings, f);
    }
    job = saved;
  }

  const SearchSpace& space_;
  int blocks_;
  std::vector<std::size_t> order_;  // axis indices, outermost first
};

}  // namespace ptp::predict::detail
