#pragma once
// The job spec's top-level keys: what parse_job_spec accepts and --set/--unset may name.
#include <string>
#include <vector>

namespace ptp {

const std::vector<std::string>& job_spec_keys();

}  // namespace ptp
