#pragma once
// The top-level keys of a Kineto file other than traceEvents: who ran it (distributedInfo),
// on what (deviceProperties), and when (baseTimeNanoseconds). Kineto writes baseTimeNanoseconds
// after the events, so this is filled while scanning and applied once at the end.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/Result.h"

namespace ps::trace::import {

struct KinetoDeviceInfo {
  std::int64_t id = -1;
  std::string name;
  std::optional<std::int64_t> totalGlobalMem;
  std::optional<std::int64_t> computeMajor;
  std::optional<std::int64_t> computeMinor;
};

struct KinetoMetadata {
  std::optional<int> rank;
  std::optional<int> worldSize;
  // UTC epoch ns of the events' time 0; absent in legacy files, whose times are epoch µs.
  std::optional<std::int64_t> baseTimeNs;
  std::optional<std::string> host;
  std::vector<KinetoDeviceInfo> devices;
};

// True for the top-level keys readKinetoMetadataValue understands (others are skipped unread).
[[nodiscard]] bool isKinetoMetadataKey(std::string_view key);

// Reads the value of top-level key `key`, bytes [begin, end) of `data`, into `meta`. `data` must
// stay readable for at least 64 bytes past `end` (InputBuffer's padding); it starts at content
// offset `offset`. Values of an unexpected type are ignored; malformed JSON gives "at byte N:
// what" with N counted in the content.
[[nodiscard]] Status readKinetoMetadataValue(std::string_view key, const char* data,
                                             std::size_t begin, std::size_t end,
                                             std::size_t available, std::uint64_t offset,
                                             KinetoMetadata& meta);

}  // namespace ps::trace::import
