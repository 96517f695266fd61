#include "trace/import/nsys/NsysTracks.h"

#include <limits>

namespace ps::trace::import::nsys {

std::int32_t NsysTracks::lookup(std::int64_t device, std::int64_t stream) {
  const auto key = std::make_pair(device, stream);
  auto it = index_.find(key);
  if (it == index_.end()) {
    Entry e;
    e.device = device;
    e.stream = stream;
    if (device >= 0 && device < 64 && stream >= 0 && stream < (1 << 18)) {
      e.track = kGpuTrackBase + static_cast<std::int32_t>((device << 18) + stream);
    } else {
      e.track = nextOverflow_;
      // Past 2^31 (two billion odd streams: only a damaged file) all share the last number.
      if (nextOverflow_ < std::numeric_limits<std::int32_t>::max()) ++nextOverflow_;
    }
    it = index_.emplace(key, entries_.size()).first;
    entries_.push_back(e);
  }
  last_ = it->second;
  ++entries_[last_].events;
  return entries_[last_].track;
}

std::optional<std::int64_t> NsysTracks::busiestDevice() const {
  std::map<std::int64_t, std::int64_t> perDevice;
  for (const auto& e : entries_)
    perDevice[e.device] += e.events;
  std::optional<std::int64_t> best;
  std::int64_t bestCount = -1;
  for (const auto& [device, count] : perDevice) {
    if (count > bestCount) {
      best = device;
      bestCount = count;
    }
  }
  return best;
}

}  // namespace ps::trace::import::nsys
