#pragma once
// SHA-256 for bundle checksums and training-data hashes. OpenSSL's libcrypto does the hashing: its
// SHA-NI/AVX2 code is ~10x faster than a portable loop, and every learned prediction verifies ~1 MB
// of boosters before it starts.
#include <string>

namespace ptp {

std::string sha256_hex(const std::string& data);
std::string sha256_file(const std::string& path);  // throws InputError when unreadable

}  // namespace ptp
