#include "ptp/vocab/point_status.hpp"

namespace ptp::vocab {

const EnumNames<PointStatus>& point_status_names() {
  static const EnumNames<PointStatus> names = {
      {PointStatus::ok, "ok", "measured"},
      {PointStatus::failed, "failed", "the benchmark ran and broke (error, out of memory, wrong result)"},
      {PointStatus::unsupported, "unsupported", "this GPU/library cannot run the point"},
      {PointStatus::skipped, "skipped", "the launch lacks what it needs (ranks, devices)"},
  };
  return names;
}

const char* point_status_name(PointStatus s) { return name_of(point_status_names(), s); }

}  // namespace ptp::vocab
