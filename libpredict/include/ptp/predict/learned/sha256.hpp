#pragma once
// SHA-256 (FIPS 180-4) for bundle checksums and training-data hashes; small enough that pulling in
// a crypto library for it is not worth the dependency.
#include <string>

namespace ptp {

std::string sha256_hex(const std::string& data);
std::string sha256_file(const std::string& path);  // throws InputError when unreadable

}  // namespace ptp
