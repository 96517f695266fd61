#include "runtime/model/ParamLayout.h"

#include <utility>

namespace ps::runtime {

std::size_t ParamLayout::add(std::string name, std::size_t size, int fanIn) {
  const std::size_t offset = size_;
  slices_.push_back({std::move(name), offset, size, fanIn, nextSeed_++});
  size_ += size;
  return offset;
}

}  // namespace ps::runtime
