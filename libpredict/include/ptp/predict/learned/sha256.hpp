#pragma once
// SHA-256 for bundle checksums and training-data hashes (own implementation, SHA extensions when the
// CPU has them: see sha256.cpp for why not OpenSSL).
#include <cstddef>
#include <string>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

std::string sha256_hex(const char* data, std::size_t size);
inline std::string sha256_hex(const std::string& data) { return sha256_hex(data.data(), data.size()); }
std::string sha256_file(const std::string& path);  // throws InputError when unreadable

}  // namespace ptp::predict
