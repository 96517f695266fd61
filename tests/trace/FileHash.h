#pragma once
// A file's bytes as one FNV-1a hash: tests that a refusal or a read left a file untouched.

#include <cstdint>
#include <string>

#include "tests/common/TestUtil.h"

namespace ps::trace {

inline std::uint64_t fileHash(const std::string& path) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : test::readFile(path)) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace ps::trace
