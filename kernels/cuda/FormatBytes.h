#pragma once
// "1.2 GiB": a size as people read it, for the cuda backend's out-of-memory messages. No CUDA
// here, so that the CPU-tested bookkeeping (BlockCache.h) words its errors the same way.

#include <cstddef>
#include <cstdio>
#include <string>

namespace ps::kernels::cuda {

inline std::string formatBytes(std::size_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024.0 && unit < 6) {
    v /= 1024.0;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, unit == 0 ? "%.0f %s" : "%.1f %s", v, kUnits[unit]);
  return buf;
}

}  // namespace ps::kernels::cuda
