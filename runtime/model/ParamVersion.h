#pragma once
// A copy of a stage's weights taken at one point of training, for schedules whose micro-batches
// run with weights older than the live ones: PipeDream's weight stashing (one version per
// micro-batch in flight) and PipeDream-2BW's double buffering (the previous version). A StageModel
// runs a micro-batch's F with a given version and its I with the same one. Immutable; shared
// between the micro-batches that use it; its bytes are counted while it lives.

#include <cstddef>
#include <cstdint>

#include "runtime/model/Tensor.h"

namespace ps::runtime {

class ParamVersion {
 public:
  ParamVersion(int version, Tensor weights) : version_(version), weights_(std::move(weights)) {}

  // Optimizer steps the stage had applied when the copy was taken.
  int version() const { return version_; }
  const float* data() const { return weights_.data(); }
  std::size_t size() const { return weights_.size(); }
  std::int64_t bytes() const { return weights_.bytes(); }

 private:
  int version_;
  Tensor weights_;
};

}  // namespace ps::runtime
