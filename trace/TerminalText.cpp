#include "trace/TerminalText.h"

#include <cstdint>

namespace ps::trace {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void appendHexByte(std::string& out, const char* prefix, unsigned value) {
  out += prefix;
  out += kHex[(value >> 4) & 0xF];
  out += kHex[value & 0xF];
}

// Length of the valid UTF-8 sequence starting at text[i] and its code point; 0 when the bytes
// there are not one (a stray continuation byte, a truncated or overlong sequence, a surrogate).
std::size_t utf8Sequence(std::string_view text, std::size_t i, std::uint32_t& codePoint) {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t length = 0;
  std::uint32_t min = 0;
  if (lead < 0x80) {
    codePoint = lead;
    return 1;
  }
  if ((lead & 0xE0) == 0xC0) {
    length = 2, min = 0x80, codePoint = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, min = 0x800, codePoint = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, min = 0x10000, codePoint = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[i + k]);
    if ((next & 0xC0) != 0x80) return 0;
    codePoint = (codePoint << 6) | (next & 0x3F);
  }
  if (codePoint < min || codePoint > 0x10FFFF || (codePoint >= 0xD800 && codePoint <= 0xDFFF))
    return 0;
  return length;
}

// Appends the character (or the byte, when invalid) at text[i]; returns how many bytes it took.
std::size_t appendSafe(std::string& out, std::string_view text, std::size_t i) {
  std::uint32_t cp = 0;
  const std::size_t length = utf8Sequence(text, i, cp);
  if (length == 0) {
    appendHexByte(out, "\\x", static_cast<unsigned char>(text[i]));
    return 1;
  }
  if (cp == '\n') {
    out += "\\n";
  } else if (cp == '\r') {
    out += "\\r";
  } else if (cp == '\t') {
    out += "\\t";
  } else if (cp == '\\') {
    out += "\\\\";
  } else if (cp < 0x20 || cp == 0x7F) {
    appendHexByte(out, "\\x", cp);
  } else if (cp >= 0x80 && cp <= 0x9F) {
    appendHexByte(out, "\\u00", cp);
  } else {
    out.append(text.substr(i, length));
  }
  return length;
}

}  // namespace

std::string terminalSafe(std::string_view text, std::size_t maxChars) {
  std::string out;
  out.reserve(text.size() < maxChars ? text.size() : maxChars);
  std::size_t i = 0;
  std::size_t kept = 0;
  while (i < text.size() && kept < maxChars) {
    i += appendSafe(out, text, i);
    ++kept;
  }
  if (i == text.size()) return out;
  std::size_t leftOut = 0;
  std::uint32_t cp = 0;
  while (i < text.size()) {
    const std::size_t length = utf8Sequence(text, i, cp);
    i += length == 0 ? 1 : length;
    ++leftOut;
  }
  out += "\xE2\x80\xA6 (+" + std::to_string(leftOut) + " chars)";
  return out;
}

}  // namespace ps::trace
