#pragma once
// A byte-level walker for the outer structure of a Kineto file: the top-level object's keys and
// the boundaries between the elements of its traceEvents array. It tracks only strings and
// bracket depth, which is all that is needed to cut the event array into windows of about a
// megabyte that simdjson then parses properly. (One simdjson document over a whole 400 MB trace
// would need a structural index as large as the file again; windows keep memory at ~1x.)

#include <cstddef>
#include <string>
#include <string_view>

#include "trace/Result.h"

namespace ps::trace::import {

class KinetoScanner {
 public:
  explicit KinetoScanner(std::string_view bytes) : bytes_(bytes) {}

  std::size_t size() const { return bytes_.size(); }
  char at(std::size_t pos) const { return pos < bytes_.size() ? bytes_[pos] : '\0'; }

  // First position at or after `pos` that is not JSON whitespace (size() at the end).
  [[nodiscard]] std::size_t skipWhitespace(std::size_t pos) const;
  // One past the closing quote of the string whose opening quote is at `pos`.
  [[nodiscard]] Result<std::size_t> skipString(std::size_t pos) const;
  // One past the end of the value (object, array, string or scalar) starting at `pos`.
  [[nodiscard]] Result<std::size_t> skipValue(std::size_t pos) const;

  // Errors are "at byte N: what" so the reader can prefix the file and "malformed JSON".
  [[nodiscard]] static Error errorAt(std::size_t pos, const std::string& what);

 private:
  [[nodiscard]] Result<std::size_t> skipNested(std::size_t pos) const;

  std::string_view bytes_;
};

}  // namespace ps::trace::import
