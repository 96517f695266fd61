#include "trace/import/kineto/KinetoScanner.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ps::trace::import {

namespace {

bool isJsonSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

}  // namespace

Error KinetoScanner::errorAt(std::size_t pos, const std::string& what) {
  return makeError("at byte " + std::to_string(pos) + ": " + what);
}

std::size_t KinetoScanner::skipWhitespace(std::size_t pos) const {
  while (pos < bytes_.size() && isJsonSpace(bytes_[pos]))
    ++pos;
  hitEnd_ = pos >= bytes_.size();
  return pos;
}

Result<std::size_t> KinetoScanner::skipString(std::size_t pos) const {
  hitEnd_ = false;
  const char* base = bytes_.data();
  std::size_t from = pos + 1;
  while (from < bytes_.size()) {
    const void* hit = std::memchr(base + from, '"', bytes_.size() - from);
    if (hit == nullptr) break;
    const auto quote = static_cast<std::size_t>(static_cast<const char*>(hit) - base);
    // An odd run of backslashes before the quote escapes it.
    std::size_t slashes = 0;
    while (quote - slashes > from && base[quote - slashes - 1] == '\\')
      ++slashes;
    if (slashes % 2 == 0) return quote + 1;
    from = quote + 1;
  }
  hitEnd_ = true;
  return errorHere(bytes_.size(), "unexpected end of data inside the string starting at byte " +
                                      std::to_string(offset_ + pos));
}

// The state of a walk through nested JSON: inside a string or not, after a backslash or not,
// and how many brackets are open. step() takes one byte; it returns true when the value that
// started the walk has just closed.
struct NestedWalk {
  std::size_t depth = 0;
  bool inString = false;
  bool escaped = false;

  bool step(char c) {
    if (inString) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        inString = false;
      }
      return false;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;  // a stray closer at depth 0 cannot happen: the walk starts on an opener
      return depth == 0;
    }
    return false;
  }
};

Result<std::size_t> KinetoScanner::skipNested(std::size_t pos) const {
  hitEnd_ = false;
  const char* data = bytes_.data();
  const std::size_t size = bytes_.size();
  NestedWalk walk;
  std::size_t i = pos;
#if defined(__SSE2__)
  // Sixteen bytes at a time: find quotes and brackets with SSE2 compares and visit only those.
  // A block holding a backslash (rare in traces) goes byte by byte, so escapes stay exact.
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i slash = _mm_set1_epi8('\\');
  const __m128i openBrace = _mm_set1_epi8('{');
  const __m128i closeBrace = _mm_set1_epi8('}');
  const __m128i openBracket = _mm_set1_epi8('[');
  const __m128i closeBracket = _mm_set1_epi8(']');
  while (i + 16 <= size) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    const auto slashes = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, slash)));
    if (slashes != 0 || walk.escaped) {
      for (std::size_t k = 0; k < 16; ++k)
        if (walk.step(data[i + k])) return i + k + 1;
      i += 16;
      continue;
    }
    const auto quotes = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)));
    const auto opens = static_cast<unsigned>(_mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(v, openBrace), _mm_cmpeq_epi8(v, openBracket))));
    const auto closes = static_cast<unsigned>(_mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(v, closeBrace), _mm_cmpeq_epi8(v, closeBracket))));
    unsigned pending = quotes | opens | closes;
    while (pending != 0) {
      const unsigned bit = pending & (0U - pending);
      pending &= pending - 1;
      if ((quotes & bit) != 0) {
        walk.inString = !walk.inString;
      } else if (walk.inString) {
        continue;  // a bracket inside a string
      } else if ((opens & bit) != 0) {
        ++walk.depth;
      } else if (--walk.depth == 0) {
        return i + static_cast<std::size_t>(__builtin_ctz(bit)) + 1;
      }
    }
    i += 16;
  }
#endif
  for (; i < size; ++i)
    if (walk.step(data[i])) return i + 1;
  hitEnd_ = true;
  return errorHere(size, "unexpected end of data inside the value starting at byte " +
                             std::to_string(offset_ + pos));
}

Result<std::size_t> KinetoScanner::skipValue(std::size_t pos) const {
  const char c = at(pos);
  hitEnd_ = pos >= bytes_.size();
  if (hitEnd_) return errorHere(pos, "unexpected end of data, expected a value");
  if (c == '"') return skipString(pos);
  if (c == '{' || c == '[') return skipNested(pos);
  std::size_t i = pos;
  while (i < bytes_.size()) {
    const char d = bytes_[i];
    if (d == ',' || d == '}' || d == ']' || d == ':' || isJsonSpace(d)) break;
    ++i;
  }
  hitEnd_ = i >= bytes_.size();  // a number may go on in the next bytes
  if (i == pos) return errorHere(pos, std::string("unexpected '") + c + "', expected a value");
  return i;
}

}  // namespace ps::trace::import
