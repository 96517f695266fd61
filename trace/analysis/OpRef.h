#pragma once
// One op of a RunTrace, addressed the way its columns are: rank, lane, index in the lane.

#include <cstddef>

#include "trace/OpKind.h"

namespace ps::trace {

struct OpRef {
  int rank = -1;
  Lane lane = Lane::Compute;
  std::size_t index = 0;

  bool valid() const { return rank >= 0; }
  friend bool operator==(const OpRef&, const OpRef&) = default;
};

}  // namespace ps::trace
