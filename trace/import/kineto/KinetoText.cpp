#include "trace/import/kineto/KinetoText.h"

#include <cstdint>

#include "trace/Utf8.h"

namespace ps::trace::import {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

void appendUtf8(std::uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The four hex digits at text[i..i+4) as a number, or -1.
long hex4(std::string_view text, std::size_t i) {
  if (i + 4 > text.size()) return -1;
  long v = 0;
  for (std::size_t k = i; k < i + 4; ++k) {
    const char c = text[k];
    v *= 16;
    if (c >= '0' && c <= '9') {
      v += c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v += c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      v += c - 'A' + 10;
    } else {
      return -1;
    }
  }
  return v;
}

}  // namespace

std::size_t replaceInvalidUtf8(std::string_view in, std::string& out) {
  std::size_t replaced = 0;
  out.reserve(out.size() + in.size());
  for (std::size_t i = 0; i < in.size();) {
    std::uint32_t cp = 0;
    const std::size_t length = utf8SequenceAt(in, i, cp);
    if (length == 0) {
      out += kReplacement;
      ++replaced;
      ++i;
    } else {
      out.append(in.substr(i, length));
      i += length;
    }
  }
  return replaced;
}

// simdjson's first pass says only that a window holds a bad byte (invalid UTF-8, a control
// character inside a string); find which one for the message.
std::size_t firstBadByte(const char* data, std::size_t begin, std::size_t end) {
  bool inString = false;
  for (std::size_t i = begin; i < end; ++i) {
    const auto c = static_cast<unsigned char>(data[i]);
    if (inString) {
      if (c == '\\') {
        ++i;
        continue;
      }
      if (c == '"') inString = false;
      if (c < 0x20) return i;
    } else if (c == '"') {
      inString = true;
    }
    if (c < 0x80) continue;
    // The same rules simdjson applies (no overlong forms, surrogates or values past U+10FFFF).
    std::uint32_t codePoint = 0;
    const std::size_t length =
        utf8SequenceAt(std::string_view(data + begin, end - begin), i - begin, codePoint);
    if (length == 0) return i;
    i += length - 1;
  }
  return begin;
}

std::string decodeJsonStringLenient(std::string_view contents) {
  std::string out;
  out.reserve(contents.size());
  for (std::size_t i = 0; i < contents.size();) {
    const char c = contents[i];
    if (c != '\\') {
      std::size_t run = i;
      while (run < contents.size() && contents[run] != '\\')
        ++run;
      replaceInvalidUtf8(contents.substr(i, run - i), out);
      i = run;
      continue;
    }
    if (i + 1 >= contents.size()) {
      out += kReplacement;
      break;
    }
    const char e = contents[i + 1];
    i += 2;
    switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        continue;
      case 'b':
        out += '\b';
        continue;
      case 'f':
        out += '\f';
        continue;
      case 'n':
        out += '\n';
        continue;
      case 'r':
        out += '\r';
        continue;
      case 't':
        out += '\t';
        continue;
      case 'u':
        break;
      default:
        out += kReplacement;
        continue;
    }
    const long unit = hex4(contents, i);
    if (unit < 0) {
      out += kReplacement;
      continue;
    }
    i += 4;
    if (unit >= 0xD800 && unit <= 0xDBFF) {  // a high surrogate: a low one must follow
      const long low = i + 1 < contents.size() && contents[i] == '\\' && contents[i + 1] == 'u'
                           ? hex4(contents, i + 2)
                           : -1;
      if (low >= 0xDC00 && low <= 0xDFFF) {
        appendUtf8(0x10000 + ((static_cast<std::uint32_t>(unit) - 0xD800) << 10) +
                       (static_cast<std::uint32_t>(low) - 0xDC00),
                   out);
        i += 6;
      } else {
        out += kReplacement;
      }
    } else if (unit >= 0xDC00 && unit <= 0xDFFF) {  // a low surrogate alone
      out += kReplacement;
    } else {
      appendUtf8(static_cast<std::uint32_t>(unit), out);
    }
  }
  return out;
}

}  // namespace ps::trace::import
