#pragma once
// The importers' input: the bytes of a file, gunzipped when they are gzip data (told by the
// magic bytes 1f 8b, not by the name). InputStream holds a sliding window of the content in a
// buffer followed by zeroed padding, which lets block-wise parsers (simdjson reads 64 bytes at a
// time) run over it in place; the reader drops what it has parsed, so neither the file nor its
// inflated content is ever held whole. readInputFile/loadInputBytes read everything into one
// buffer for callers that want that.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "trace/Result.h"
#include "trace/import/GzipLimits.h"
#include "trace/import/InputSources.h"
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

// A window [offset(), offset() + size()) of the content, filled from a source on demand.
class InputStream {
 public:
  // Opens `path` and reads its first kInputHeadBytes (running InputOptions::checkHead on them).
  // Errors name the file: "PATH: cannot open: ...", "PATH: is a directory, not a trace file",
  // and those of InputSources.h.
  [[nodiscard]] static Result<InputStream> openFile(const std::string& path,
                                                    const ReadControl& control = {},
                                                    const InputOptions& options = {});
  // The same over bytes in memory, which must outlive the stream; `label` names them.
  [[nodiscard]] static Result<InputStream> openBytes(std::string_view bytes,
                                                     const std::string& label,
                                                     const ReadControl& control = {},
                                                     const InputOptions& options = {});

  char* data() { return buffer_.data(); }
  const char* data() const { return buffer_.data(); }
  std::size_t size() const { return buffer_.size(); }
  std::string_view view() const { return buffer_.view(); }
  // Content offset of data()[0]: how many bytes have been dropped before it.
  std::uint64_t offset() const { return offset_; }
  // True once the source is exhausted: size() is all there is from offset() on.
  bool finished() const { return finished_; }
  // How far through the file (the compressed bytes, for gzip) the stream has read, in [0, 1].
  double fraction() const { return finished_ ? 1.0 : source_->fraction(); }

  // Reads until at least `more` bytes have been added or the source ends. May move data().
  [[nodiscard]] Status fill(std::size_t more);
  // Drops the first `count` bytes of the window (offset() grows by as much).
  void discard(std::size_t count);
  // The buffer, for a caller that read everything (offset() == 0 and finished()).
  InputBuffer takeBuffer() { return std::move(buffer_); }

 private:
  InputStream(std::unique_ptr<ByteSource> source, std::string label, const ReadControl& control);
  [[nodiscard]] Status checkHead(const InputOptions& options);

  std::unique_ptr<ByteSource> source_;
  std::string label_;
  const ReadControl* control_;
  InputBuffer buffer_;
  std::uint64_t offset_ = 0;
  bool finished_ = false;
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
