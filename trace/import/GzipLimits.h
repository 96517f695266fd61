#pragma once
// How far gzip input may inflate (issue 12, case 15). Deflate expands up to about 1032:1, so a
// few MB of gzip can claim gigabytes: 9.4 MB of gzipped zeros took 2.1 GB and 3.6 s before the
// reader saw that byte 0 was no JSON. The input now streams (InputStream), so memory no longer
// grows with the content; the caps still bound the time a bomb can take:
//   - a ratio: more than maxRatio times the compressed size, once past ratioFloorBytes (small
//     files may compress as well as they like); profiler JSON compresses about 10:1;
//   - an absolute size: maxBytes.
// Either is refused with a message that says the limit and how to raise it.

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/Result.h"

namespace ps::trace::import {

struct GzipLimits {
  static constexpr std::uint64_t kDefaultMaxRatio = 100;
  static constexpr std::uint64_t kDefaultRatioFloorBytes = std::uint64_t{64} << 20;  // 64 MiB
  static constexpr std::uint64_t kDefaultMaxBytes = std::uint64_t{16} << 30;         // 16 GiB

  std::uint64_t maxRatio = kDefaultMaxRatio;  // 0: no ratio limit
  std::uint64_t ratioFloorBytes = kDefaultRatioFloorBytes;
  std::uint64_t maxBytes = kDefaultMaxBytes;

  // The defaults with the environment's overrides: PIPESCOPE_GZIP_MAX_RATIO=N (0 = none) and
  // PIPESCOPE_GZIP_MAX_BYTES=SIZE (bytes, or with a K, M, G or T suffix: binary units). A value
  // that is no number is an error naming the variable and the value.
  [[nodiscard]] static Result<GzipLimits> fromEnvironment();

  // The most bytes `compressedBytes` of gzip may inflate to.
  std::uint64_t limitFor(std::uint64_t compressedBytes) const;

  // "PATH: gzip expands beyond 200.00 MiB (ratio 100:1 to its 2.00 MiB): refusing; ..." or,
  // past maxBytes, "PATH: gzip expands beyond 16.00 GiB: refusing; ...".
  std::string refusal(const std::string& label, std::uint64_t compressedBytes) const;
};

// "64G" -> 64 << 30; nullopt-like error for anything but digits with an optional K/M/G/T suffix.
[[nodiscard]] Result<std::uint64_t> parseByteSize(std::string_view text);

}  // namespace ps::trace::import
