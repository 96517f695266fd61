#pragma once
// Peak resident memory of a stretch of work, for the import benchmarks: the resident set before
// it, and its peak during it (Linux: writing 5 to /proc/self/clear_refs resets VmHWM). Freed heap
// is handed back first (malloc_trim), so what an earlier benchmark left in the allocator does not
// hide this one's growth.

#include <malloc.h>

#include <cstring>
#include <fstream>
#include <string>

namespace ps::bench {

// A field of /proc/self/status in bytes ("VmRSS:", "VmHWM:"); -1 when unreadable.
inline long statusField(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::strlen(field))) * 1024;
  return -1;
}

inline bool resetPeak() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  return static_cast<bool>(out);
}

// Starts measuring; peakGrowth() is then the peak resident set above the start, in bytes (-1:
// the peak cannot be reset here).
class PeakMemory {
 public:
  PeakMemory() {
    malloc_trim(0);
    canReset_ = resetPeak();
    before_ = statusField("VmRSS:");
  }
  long peakGrowth() const {
    const long peak = canReset_ ? statusField("VmHWM:") : -1;
    return peak > 0 && before_ > 0 ? peak - before_ : -1;
  }

 private:
  bool canReset_ = false;
  long before_ = -1;
};

}  // namespace ps::bench
