#pragma once
// The model's counting allocator: every Tensor of the model (weights, gradients, optimizer state,
// activation stashes, scratch) reports its bytes here, so the executor records the real memory
// of each rank over time. One counter per rank, shared by that rank's stages. It also names the
// device the rank's tensors live on (the host unless a backend says otherwise), so the model's
// code is the same on the cpu and cuda backends.

#include <atomic>
#include <cstdint>
#include <functional>

#include "kernels/ComputeDevice.h"

namespace ps::runtime {

class MemoryCounter {
 public:
  // Called after every change with the new bytes in use, on the thread that (de)allocated.
  using Listener = std::function<void(std::int64_t bytesInUse)>;

  // `device` must outlive the counter and every tensor counted by it; null = the host.
  explicit MemoryCounter(kernels::ComputeDevice* device = nullptr)
      : device_(device ? device : &kernels::hostDevice()) {}
  MemoryCounter(const MemoryCounter&) = delete;
  MemoryCounter& operator=(const MemoryCounter&) = delete;

  void allocated(std::int64_t bytes);
  void released(std::int64_t bytes);

  kernels::ComputeDevice& device() const { return *device_; }
  std::int64_t bytesInUse() const { return inUse_.load(std::memory_order_relaxed); }
  std::int64_t peakBytes() const { return peak_.load(std::memory_order_relaxed); }
  // Starts a new peak window at the current usage (e.g. per step).
  void resetPeak() { peak_.store(bytesInUse(), std::memory_order_relaxed); }

  // Set before the counter is shared between threads; not synchronised with (de)allocations.
  void setListener(Listener listener) { listener_ = std::move(listener); }

 private:
  std::atomic<std::int64_t> inUse_{0};
  std::atomic<std::int64_t> peak_{0};
  Listener listener_;
  kernels::ComputeDevice* device_;
};

}  // namespace ps::runtime
