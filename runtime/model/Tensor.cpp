#include "runtime/model/Tensor.h"

#include <utility>

namespace ps::runtime {

Tensor::Tensor(std::shared_ptr<MemoryCounter> counter, std::size_t elems)
    : counter_(std::move(counter)),
      device_(counter_ ? &counter_->device() : &kernels::hostDevice()) {
  if (elems == 0) return;
  data_ = static_cast<float*>(device_->allocate(elems * sizeof(float)));
  size_ = elems;
  if (counter_) counter_->allocated(bytes());
}

Tensor Tensor::uncounted(kernels::ComputeDevice& device, std::size_t elems) {
  Tensor t;
  t.device_ = &device;
  if (elems > 0) {
    t.data_ = static_cast<float*>(device.allocate(elems * sizeof(float)));
    t.size_ = elems;
  }
  return t;
}

Tensor Tensor::adopt(std::shared_ptr<MemoryCounter> counter, float* data, std::size_t elems) {
  Tensor t;
  t.counter_ = std::move(counter);
  t.device_ = t.counter_ ? &t.counter_->device() : &kernels::hostDevice();
  t.data_ = elems > 0 ? data : nullptr;
  t.size_ = t.data_ ? elems : 0;
  if (t.counter_ && t.size_ > 0) t.counter_->allocated(t.bytes());
  return t;
}

Tensor::~Tensor() {
  reset();
}

Tensor::Tensor(Tensor&& other) noexcept
    : counter_(std::move(other.counter_)),
      device_(other.device_),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this != &other) {
    reset();
    counter_ = std::move(other.counter_);
    device_ = other.device_;
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

Tensor Tensor::clone() const {
  Tensor copy = counter_ ? Tensor(counter_, size_) : uncounted(*device_, size_);
  if (size_ > 0) device_->copy(copy.data_, data_, static_cast<std::size_t>(bytes()));
  return copy;
}

Tensor Tensor::fromHost(std::shared_ptr<MemoryCounter> counter, const std::vector<float>& host) {
  Tensor t(std::move(counter), host.size());
  if (!host.empty()) t.device().upload(t.data(), host.data(), host.size() * sizeof(float));
  return t;
}

void Tensor::reset() {
  if (data_) {
    if (counter_) counter_->released(bytes());
    device_->release(data_, static_cast<std::size_t>(bytes()));
  }
  data_ = nullptr;
  size_ = 0;
}

}  // namespace ps::runtime
