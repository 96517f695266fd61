#pragma once
// Track numbers for the events of one nsys process. Host threads keep their OS thread id
// (nsys stores 24 bits of it, so below 2^24); a GPU stream gets
//   2^24 + deviceId * 2^18 + streamId      (deviceId < 64, streamId < 2^18)
// so both stay readable and never collide; the rare stream outside that range gets a number from
// 2^26 up, in the order seen.

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace ps::trace::import::nsys {

inline constexpr std::int32_t kGpuTrackBase = 1 << 24;

class NsysTracks {
 public:
  // The track of (device, stream), counting one event on it.
  std::int32_t gpuTrack(std::int64_t device, std::int64_t stream) {
    if (last_ < entries_.size() && entries_[last_].device == device &&
        entries_[last_].stream == stream) {
      ++entries_[last_].events;
      return entries_[last_].track;
    }
    return lookup(device, stream);
  }
  // The device with the most events on its streams; nullopt before any GPU event.
  std::optional<std::int64_t> busiestDevice() const;

 private:
  struct Entry {
    std::int64_t device = 0;
    std::int64_t stream = 0;
    std::int32_t track = 0;
    std::int64_t events = 0;
  };
  std::int32_t lookup(std::int64_t device, std::int64_t stream);

  std::vector<Entry> entries_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> index_;
  std::size_t last_ = 0;
  std::int32_t nextOverflow_ = 1 << 26;
};

}  // namespace ps::trace::import::nsys
