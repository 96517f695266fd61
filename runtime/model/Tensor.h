#pragma once
// An owning, zero-initialised fp32 buffer on a ComputeDevice whose bytes are counted by a
// MemoryCounter for its whole life. The counter names the device (the host when it has none);
// a tensor without a counter lives on the host, uncounted. Shapes live with the code that uses it
// (kernels take float* plus dimensions). data() is the device's pointer: only host tensors may be
// read through span().

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kernels/ComputeDevice.h"
#include "runtime/model/MemoryCounter.h"

namespace ps::runtime {

class Tensor {
 public:
  Tensor() = default;
  // `counter` may be null (host, not counted); otherwise it is kept alive by the tensor.
  Tensor(std::shared_ptr<MemoryCounter> counter, std::size_t elems);
  // An uncounted tensor on `device` (bookkeeping that is not the model's memory, e.g. a loss
  // value waiting to be read).
  static Tensor uncounted(kernels::ComputeDevice& device, std::size_t elems);
  // Takes ownership of `elems` floats at `data`, allocated on the counter's device by other means
  // (e.g. CudaDevice::allocateFor), and counts them; released like any other tensor.
  static Tensor adopt(std::shared_ptr<MemoryCounter> counter, float* data, std::size_t elems);
  ~Tensor();
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  // A counted copy with the same counter, on the same device.
  Tensor clone() const;
  // A counted tensor holding `host` (uploaded to the counter's device).
  static Tensor fromHost(std::shared_ptr<MemoryCounter> counter, const std::vector<float>& host);
  // Frees the buffer now.
  void reset();

  kernels::ComputeDevice& device() const { return *device_; }
  const std::shared_ptr<MemoryCounter>& counter() const { return counter_; }
  float* data() { return data_; }
  const float* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::int64_t bytes() const { return static_cast<std::int64_t>(size_ * sizeof(float)); }
  bool empty() const { return size_ == 0; }
  std::span<float> span() { return {data_, size_}; }
  std::span<const float> span() const { return {data_, size_}; }

 private:
  std::shared_ptr<MemoryCounter> counter_;
  kernels::ComputeDevice* device_ = &kernels::hostDevice();
  float* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace ps::runtime
