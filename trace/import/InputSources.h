#pragma once
// Where the importers' bytes come from, a block at a time: a file (or pipe), bytes in memory, or
// either of those gunzipped on the fly. InputStream (GzipInput.h) pulls from one of these into
// a sliding window, so a trace is never held whole in memory, compressed or not.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "trace/Result.h"
#include "trace/import/GzipLimits.h"
#include "trace/import/RawTrace.h"

namespace ps::trace::import {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `max` (> 0) bytes into `dst`; 0 only at the end. Errors name the source.
  [[nodiscard]] virtual Result<std::size_t> read(char* dst, std::size_t max) = 0;
  // How far through the source the reads have got, in [0, 1] (0 when its size is unknown).
  virtual double fraction() const = 0;
};

// An open file or pipe, read with stdio (the source closes it). `size` is its size when known (a
// regular file), else 0. A read interrupted by a signal is retried unless the cancel flag is set
// ("PATH: import cancelled"); a failed read is "PATH: read error: ...".
[[nodiscard]] std::unique_ptr<ByteSource> fileSource(std::FILE* file, std::string path,
                                                     std::uint64_t size,
                                                     const ReadControl& control);

// `prefix` (bytes already taken from a pipe to look at its magic), then `rest`.
[[nodiscard]] std::unique_ptr<ByteSource> prefixedSource(std::string prefix,
                                                         std::unique_ptr<ByteSource> rest);

// Bytes that outlive the source.
[[nodiscard]] std::unique_ptr<ByteSource> memorySource(std::string_view bytes);

// `raw` gunzipped (concatenated members too, as gzip(1) reads them; trailing bytes that do not
// start a member are ignored, as gzip(1) does). `compressedSize` (0: unknown, e.g. a pipe) sets
// the limit with `limits`; an unknown size is judged by what has been read so far. Errors:
// "LABEL: truncated gzip data after N bytes", "LABEL: corrupt gzip data at byte N: ...",
// GzipLimits::refusal, "LABEL: import cancelled" (polled every few MB of output).
[[nodiscard]] std::unique_ptr<ByteSource> gunzipSource(std::unique_ptr<ByteSource> raw,
                                                       std::string label,
                                                       std::uint64_t compressedSize,
                                                       const GzipLimits& limits,
                                                       const ReadControl& control);

}  // namespace ps::trace::import
