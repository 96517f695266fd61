#pragma once
// A reusable barrier for the rank threads (optimizer barrier, replica gradient exchange) that
// gives up when the run aborts instead of waiting forever for a rank that died.

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace ps::runtime {

class StepBarrier {
 public:
  explicit StepBarrier(int parties) : parties_(parties) {}
  // Returns false when the run aborted while waiting.
  bool arriveAndWait(const std::atomic<bool>& abort);
  void wakeAll() { cv_.notify_all(); }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int parties_;
  int waiting_ = 0;
  long generation_ = 0;
};

}  // namespace ps::runtime
