#include "trace/TerminalText.h"

#include <cstdint>

#include "trace/Utf8.h"

namespace ps::trace {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void appendHexByte(std::string& out, const char* prefix, unsigned value) {
  out += prefix;
  out += kHex[(value >> 4) & 0xF];
  out += kHex[value & 0xF];
}

// Appends the character (or the byte, when invalid) at text[i]; returns how many bytes it took.
std::size_t appendSafe(std::string& out, std::string_view text, std::size_t i) {
  std::uint32_t cp = 0;
  const std::size_t length = utf8SequenceAt(text, i, cp);
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
    const std::size_t length = utf8SequenceAt(text, i, cp);
    i += length == 0 ? 1 : length;
    ++leftOut;
  }
  out += "\xE2\x80\xA6 (+" + std::to_string(leftOut) + " chars)";
  return out;
}

}  // namespace ps::trace
