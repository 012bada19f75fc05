#pragma once
// How a profiled point ended: ptp-profile writes it to a row's `status` column by name, and the
// training-data reader keeps only `ok` rows.
#include "ptp/vocab/enum_names.hpp"

namespace ptp::vocab {

enum class PointStatus { ok, failed, unsupported, skipped };
const EnumNames<PointStatus>& point_status_names();
const char* point_status_name(PointStatus s);

}  // namespace ptp::vocab
