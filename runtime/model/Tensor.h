#pragma once
// An owning, zero-initialised fp32 buffer whose bytes are counted by a MemoryCounter for its
// whole life. Shapes live with the code that uses it (kernels take float* plus dimensions).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "runtime/model/MemoryCounter.h"

namespace ps::runtime {

class Tensor {
 public:
  Tensor() = default;
  // `counter` may be null (not counted); otherwise it is kept alive by the tensor.
  Tensor(std::shared_ptr<MemoryCounter> counter, std::size_t elems);
  ~Tensor();
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  // A counted copy with the same counter.
  Tensor clone() const;
  // Frees the buffer now.
  void reset();

  float* data() { return data_.get(); }
  const float* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  std::int64_t bytes() const { return static_cast<std::int64_t>(size_ * sizeof(float)); }
  bool empty() const { return size_ == 0; }
  std::span<float> span() { return {data_.get(), size_}; }
  std::span<const float> span() const { return {data_.get(), size_}; }

 private:
  std::shared_ptr<MemoryCounter> counter_;
  std::unique_ptr<float[]> data_;
  std::size_t size_ = 0;
};

}  // namespace ps::runtime
