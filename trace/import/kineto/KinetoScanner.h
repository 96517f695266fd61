#pragma once
// A byte-level walker for the outer structure of a Kineto file: the top-level object's keys and
// the boundaries between the elements of its traceEvents array. It tracks only strings and
// bracket depth, which is all that is needed to cut the event array into windows of about a
// megabyte that simdjson then parses properly. (One simdjson document over a whole 400 MB trace
// would need a structural index as large as the file again; windows over a streamed input keep
// memory at a few windows.)

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "trace/Result.h"

namespace ps::trace::import {

class KinetoScanner {
 public:
  // `bytes` is a window of the content starting at content offset `offset` (messages count
  // bytes from the start of the content).
  explicit KinetoScanner(std::string_view bytes, std::uint64_t offset = 0)
      : bytes_(bytes), offset_(offset) {}

  std::size_t size() const { return bytes_.size(); }
  char at(std::size_t pos) const { return pos < bytes_.size() ? bytes_[pos] : '\0'; }

  // First position at or after `pos` that is not JSON whitespace (size() at the end).
  [[nodiscard]] std::size_t skipWhitespace(std::size_t pos) const;
  // One past the closing quote of the string whose opening quote is at `pos`.
  [[nodiscard]] Result<std::size_t> skipString(std::size_t pos) const;
  // One past the end of the value (object, array, string or scalar) starting at `pos`.
  [[nodiscard]] Result<std::size_t> skipValue(std::size_t pos) const;

  // True when the last skip stopped at the end of the window rather than on a byte that
  // decides: with more content the answer may differ (a reader streaming the content reads on
  // and asks again).
  bool hitEnd() const { return hitEnd_; }

  // The error for window position `pos`, in content bytes.
  [[nodiscard]] Error errorHere(std::size_t pos, const std::string& what) const {
    return errorAt(offset_ + pos, what);
  }

  // Errors are "at byte N: what" so the reader can prefix the file and "malformed JSON".
  [[nodiscard]] static Error errorAt(std::size_t pos, const std::string& what);

 private:
  [[nodiscard]] Result<std::size_t> skipNested(std::size_t pos) const;

  std::string_view bytes_;
  std::uint64_t offset_ = 0;
  mutable bool hitEnd_ = false;
};

}  // namespace ps::trace::import
