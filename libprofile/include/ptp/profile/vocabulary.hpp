#pragma once
// libprofile writes rows in libvocab's vocabulary (precisions, catalogs, dataset schema, errors) and
// names it unqualified: the one using-directive that says so.
namespace ptp::vocab {}
namespace ptp::profile {
using namespace ptp::vocab;
}  // namespace ptp::profile
