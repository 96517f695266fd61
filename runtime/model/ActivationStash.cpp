#include "runtime/model/ActivationStash.h"

#include <cassert>
#include <utility>

namespace ps::runtime {

ActivationStash::ActivationStash(std::shared_ptr<MemoryCounter> counter)
    : counter_(std::move(counter)) {}

float* ActivationStash::allocate(int slot, std::size_t elems) {
  assert(slot >= 0);
  if (static_cast<std::size_t>(slot) >= slots_.size()) slots_.resize(slot + 1);
  slots_[slot] = Tensor(counter_, elems);
  return slots_[slot].data();
}

float* ActivationStash::copyIn(int slot, const float* src, std::size_t elems) {
  float* dst = allocate(slot, elems);
  device().copy(dst, src, elems * sizeof(float));
  return dst;
}

float* ActivationStash::get(int slot) {
  assert(has(slot));
  return slots_[slot].data();
}

const float* ActivationStash::get(int slot) const {
  assert(has(slot));
  return slots_[slot].data();
}

bool ActivationStash::has(int slot) const {
  return slot >= 0 && static_cast<std::size_t>(slot) < slots_.size() && !slots_[slot].empty();
}

void ActivationStash::release(int slot) {
  if (has(slot)) slots_[slot].reset();
}

Tensor ActivationStash::take(int slot) {
  assert(has(slot));
  return std::move(slots_[slot]);
}

void ActivationStash::put(int slot, Tensor tensor) {
  assert(slot >= 0);
  if (static_cast<std::size_t>(slot) >= slots_.size()) slots_.resize(slot + 1);
  slots_[slot] = std::move(tensor);
}

void ActivationStash::clear() {
  slots_.clear();
}

std::int64_t ActivationStash::moveTo(std::shared_ptr<MemoryCounter> counter) {
  std::int64_t moved = 0;
  for (Tensor& t : slots_) {
    if (t.empty()) continue;
    Tensor copy(counter, t.size());
    copy.device().copy(copy.data(), t.data(), static_cast<std::size_t>(t.bytes()));
    moved += t.bytes();
    t = std::move(copy);
  }
  counter_ = std::move(counter);
  return moved;
}

std::int64_t ActivationStash::bytes() const {
  std::int64_t total = 0;
  for (const Tensor& t : slots_)
    total += t.bytes();
  return total;
}

}  // namespace ps::runtime
