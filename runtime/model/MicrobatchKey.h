#pragma once
// Names one micro-batch of one training step: the data it sees and the stash it leaves on each
// stage. Asynchronous schedules have several steps in flight, hence the step.

#include <compare>

namespace ps::runtime {

struct MicrobatchKey {
  int step = 0;
  int microbatch = 0;
  auto operator<=>(const MicrobatchKey&) const = default;
};

}  // namespace ps::runtime
