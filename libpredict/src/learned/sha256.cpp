#include "ptp/predict/learned/sha256.hpp"

#include <openssl/evp.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "ptp/vocab/error.hpp"

namespace ptp {

std::string sha256_hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL SHA-256 failed");
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(hex[digest[i] >> 4]);
    out.push_back(hex[digest[i] & 0xf]);
  }
  return out;
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, 0, "", "cannot read file");
  std::stringstream ss;
  ss << in.rdbuf();
  return sha256_hex(ss.str());
}

}  // namespace ptp
