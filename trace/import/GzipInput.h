#pragma once
// Whole-file input for the importers: the bytes of a file, gunzipped when it is gzip data (told
// by the magic bytes 1f 8b, not by the name), in one buffer followed by zeroed padding. The
// padding lets block-wise parsers (simdjson reads 64 bytes at a time) run over the buffer in
// place, so a trace costs its decompressed size in memory once and is never copied again.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "trace/Result.h"
#include "trace/import/GzipLimits.h"
#include "trace/import/RawTrace.h"

namespace ps::trace::import {

class InputBuffer {
 public:
  // Zeroed bytes always present after size() (simdjson's SIMDJSON_PADDING is 64).
  static constexpr std::size_t kPadding = 64;

  InputBuffer() = default;

  // A buffer able to hold `capacity` bytes plus padding; nullopt-like empty buffer (no data())
  // when the allocation fails, which callers turn into an error message.
  [[nodiscard]] static InputBuffer withCapacity(std::size_t capacity);

  [[nodiscard]] bool allocated() const { return data_ != nullptr; }
  char* data() { return data_.get(); }
  const char* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  // Bytes that may be stored before padding is needed (excluding the padding itself).
  std::size_t capacity() const { return capacity_; }
  std::string_view view() const { return {data_.get(), size_}; }

  // Sets the content length (<= capacity) and zeroes the padding after it.
  void setSize(std::size_t size);
  // Grows the capacity to at least `capacity`, keeping the content; false when out of memory.
  [[nodiscard]] bool grow(std::size_t capacity);

 private:
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

// True when `bytes` starts with the gzip magic (1f 8b).
[[nodiscard]] bool isGzip(std::string_view bytes);

// How much of the content a HeadCheck sees.
inline constexpr std::size_t kInputHeadBytes = std::size_t{64} << 10;

struct InputOptions {
  // Progress is reported from 0 to this (the caller's share of the whole import).
  double progressEnd = 0.0;
  // Called once with the first kInputHeadBytes of the content (after gunzipping) as soon as
  // they are in, before more is read or inflated; an error stops the read with it. Content
  // shorter than that is left to the parser. A reader refuses what cannot be its format here,
  // before a gzip bomb of zeros has inflated more than a chunk.
  std::function<Status(std::string_view head)> checkHead;
  // What gzip may inflate to; unset: GzipLimits::fromEnvironment().
  std::optional<GzipLimits> limits;
};

// Reads the whole file at `path`, gunzipping it when it is gzip data. Errors name the file:
// "PATH: cannot open: ...", "PATH: truncated gzip data after N bytes", "PATH: corrupt gzip data
// at byte N: ...", GzipLimits::refusal. The cancel flag is polled between chunks of input and,
// while inflating, every few MB of output ("PATH: import cancelled").
[[nodiscard]] Result<InputBuffer> readInputFile(const std::string& path,
                                                const ReadControl& control = {},
                                                const InputOptions& options = {});

// The same for bytes already in memory: gunzipped when they are gzip data, else copied into a
// padded buffer. `label` names the source in messages.
[[nodiscard]] Result<InputBuffer> loadInputBytes(std::string_view bytes, const std::string& label,
                                                 const ReadControl& control = {},
                                                 const InputOptions& options = {});

}  // namespace ps::trace::import
