#pragma once
// Maps CUDA event times onto the run's host time axis, with no CUDA in it (tested on the CPU).
//
// cudaEventElapsedTime gives float milliseconds between two events of one device: fine for a
// step (24-bit mantissa: ~0.5 µs over 10 s) but not for a long run. So the clock records one
// anchor event per step and measures each op against its step's anchor, and each anchor against
// the previous one; the chain is summed in integer nanoseconds. Anchor 0 is recorded on an idle
// device right after the run starts and synchronised once, which pins it to a host time.

#include <cstdint>
#include <vector>

namespace ps::runtime {

class EventTimeline {
 public:
  // `anchor0HostNs`: host ns (on the run's axis) at which anchor 0 completed.
  explicit EventTimeline(std::int64_t anchor0HostNs) : anchorNs_{anchor0HostNs} {}

  // Adds the next anchor, `msSincePrevious` after the last one; returns its index.
  int addAnchor(double msSincePrevious);
  int anchors() const { return static_cast<int>(anchorNs_.size()); }
  std::int64_t anchorNs(int anchor) const { return anchorNs_.at(anchor); }

  // The host ns of an event `msSinceAnchor` after `anchor` (negative when it came before it),
  // rounded to the nearest ns.
  std::int64_t toHostNs(int anchor, double msSinceAnchor) const;

 private:
  std::vector<std::int64_t> anchorNs_;
};

// Milliseconds (as cudaEventElapsedTime reports them) to whole nanoseconds, rounded.
std::int64_t msToNs(double ms);

}  // namespace ps::runtime
