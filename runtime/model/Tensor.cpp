#include "runtime/model/Tensor.h"

#include <algorithm>
#include <utility>

namespace ps::runtime {

Tensor::Tensor(std::shared_ptr<MemoryCounter> counter, std::size_t elems)
    : counter_(std::move(counter)), data_(elems > 0 ? new float[elems]() : nullptr), size_(elems) {
  if (counter_ && size_ > 0) counter_->allocated(bytes());
}

Tensor::~Tensor() {
  reset();
}

Tensor::Tensor(Tensor&& other) noexcept
    : counter_(std::move(other.counter_)), data_(std::move(other.data_)), size_(other.size_) {
  other.size_ = 0;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this != &other) {
    reset();
    counter_ = std::move(other.counter_);
    data_ = std::move(other.data_);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

Tensor Tensor::clone() const {
  Tensor copy(counter_, size_);
  std::copy(data_.get(), data_.get() + size_, copy.data_.get());
  return copy;
}

void Tensor::reset() {
  if (counter_ && size_ > 0) counter_->released(bytes());
  data_.reset();
  size_ = 0;
}

}  // namespace ps::runtime
