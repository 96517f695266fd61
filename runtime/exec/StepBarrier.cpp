#include "runtime/exec/StepBarrier.h"

#include <chrono>

namespace ps::runtime {

bool StepBarrier::arriveAndWait(const std::atomic<bool>& abort) {
  std::unique_lock lock(mutex_);
  const long gen = generation_;
  if (++waiting_ == parties_) {
    waiting_ = 0;
    ++generation_;
    cv_.notify_all();
    return true;
  }
  while (generation_ == gen) {
    if (abort.load()) return false;
    cv_.wait_for(lock, std::chrono::milliseconds(20));
  }
  return true;
}

}  // namespace ps::runtime
