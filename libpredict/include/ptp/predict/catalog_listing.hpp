#pragma once
// `ptp-predict --list KIND`: what a job can name, one line per entry, sorted by id, with the facts a
// user picks by. The lists are the catalogs a job is resolved against (configs/gpus, configs/models,
// configs/fabrics), the learned bundle's codebases and the precision table, so what is listed is
// what a job may name and what the did-you-mean of an unknown id suggests from.
#include <string>
#include <vector>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

struct CatalogListing {
  std::vector<std::string> lines;  // stdout, one per entry
  std::string note;                // one line for stderr, "" when none
};

// gpus | models | fabrics | codebases | precisions
const std::vector<std::string>& listing_kinds();

// Throws InputError "--list 'x': expected gpus | ... (did you mean: …?)" for another kind.
// `bundle_dir`: the learned bundle whose codebases are listed ("": none is used).
CatalogListing list_catalog(const std::string& kind, const std::string& config_dir, const std::string& bundle_dir);

}  // namespace ptp::predict
