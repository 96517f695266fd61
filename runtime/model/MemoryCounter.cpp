#include "runtime/model/MemoryCounter.h"

namespace ps::runtime {

void MemoryCounter::allocated(std::int64_t bytes) {
  const std::int64_t now = inUse_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  std::int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  if (listener_) listener_(now);
}

void MemoryCounter::released(std::int64_t bytes) {
  const std::int64_t now = inUse_.fetch_sub(bytes, std::memory_order_relaxed) - bytes;
  if (listener_) listener_(now);
}

}  // namespace ps::runtime
