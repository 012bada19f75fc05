#pragma once
// What a caller keeps between predictions through the learned levels: the answers they already
// gave. The levels and the bundle are immutable once loaded and shared by every thread; each thread
// (a search's share, a sweep, a trainer's worker) owns one LearnedMemo and passes it to every
// prediction it makes. A memo answers for one compute and one communication model at a time: used
// with another (a second bundle), it starts over.
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ptp/predict/learned/support.hpp"
#include "ptp/predict/learned/unsharded_rows.hpp"
#include "ptp/vocab/op_class.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::vocab {
struct GpuSpec;
}  // namespace ptp::vocab

namespace ptp::predict {

class LearnedMemo {
 public:
  // One launch of the compute level, keyed by what it is (no strings to build, no features to
  // compute on a hit).
  struct LaunchKey {
    const GpuSpec* gpu;
    double shape[6];  // m, n, k, batch, flops, bytes
    OpClass op_class;
    char math[8];
    bool valid;  // the math's name fits the array (always, for the maths op_shape_of makes)
    bool operator==(const LaunchKey& o) const;
  };
  struct LaunchKeyHash {
    std::size_t operator()(const LaunchKey& k) const;
  };
  struct LaunchAnswer {
    double seconds = 0;  // learned launch time
    bool measured = false;
    // Measured: the launch time itself; else its measured sibling's learned time at this GPU's
    // analytical rates (LearnedOpModel::measured_sibling), negative where there is no sibling.
    double bound_seconds = -1;
  };

  // Feature row bytes -> the level's predicted log ratio, kept across jobs.
  std::unordered_map<std::string, float> op_rows, collective_rows;
  // One job's launches (cleared when a job starts: its GPU may sit where an earlier job's did).
  std::unordered_map<LaunchKey, LaunchAnswer, LaunchKeyHash> launches;
  // The models the answers came from (their ids: learned_models.hpp), 0 before the first.
  std::uint64_t op_model = 0, collective_model = 0;
  // Rows of unsharded jobs for the aggregator (unsharded_rows.hpp), kept only where the memo serves
  // one bundle for its life (a ptp-predict session: PredictionCaches sets it).
  bool keep_unsharded_rows = false;
  UnshardedRows unsharded_rows;
  // SupportSpace::of of the last few aggregator rows (a sharded job's row is its unsharded twin's):
  // runs near and the nearest distance, by the row's exact values. Kept under keep_unsharded_rows.
  std::vector<std::pair<std::vector<float>, Support>> support_answers;  // (row, answer), most recent last
  std::size_t support_hits = 0, support_misses = 0;
  // Lookups so far, for --verbose (prediction_caches.hpp): hits and misses of each map above.
  std::size_t launch_hits = 0, launch_misses = 0, op_row_hits = 0, op_row_misses = 0;
  std::size_t collective_row_hits = 0, collective_row_misses = 0;
};

}  // namespace ptp::predict
