#include "runtime/cost/JsonSyntax.h"

namespace ps::runtime {
namespace {

constexpr int kMaxDepth = 1024;  // simdjson's default; also bounds our recursion

class Checker {
 public:
  explicit Checker(std::string_view t) : t_(t) {}

  // Returns false at the first error, with pos_ on it and expected_ set.
  bool document() {
    ws();
    if (!value(0)) return false;
    ws();
    return pos_ == t_.size() || fail("end of input after the top-level value");
  }
  std::size_t pos() const { return pos_; }
  const std::string& expected() const { return expected_; }

 private:
  bool fail(std::string what) {
    expected_ = std::move(what);
    return false;
  }
  bool more() const { return pos_ < t_.size(); }
  char peek() const { return t_[pos_]; }
  void ws() {
    while (more() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
      ++pos_;
  }
  bool literal(std::string_view word) {
    if (t_.substr(pos_, word.size()) != word) return fail("'" + std::string(word) + "'");
    pos_ += word.size();
    return true;
  }

  bool value(int depth) {
    if (depth > kMaxDepth) return fail("less nesting (over 1024 levels)");
    if (!more()) return fail("a value");
    switch (peek()) {
      case '{':
        return object(depth);
      case '[':
        return array(depth);
      case '"':
        return string();
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return number();
        return fail("a value (object, array, string, number, true, false or null)");
    }
  }

  bool object(int depth) {
    ++pos_;  // '{'
    ws();
    if (more() && peek() == '}') return ++pos_, true;
    while (true) {
      ws();
      if (!more() || peek() != '"') return fail("a string key");
      if (!string()) return false;
      ws();
      if (!more() || peek() != ':') return fail("':' after the key");
      ++pos_;
      ws();
      if (!value(depth + 1)) return false;
      ws();
      if (more() && peek() == ',') {
        ++pos_;
        continue;
      }
      if (more() && peek() == '}') return ++pos_, true;
      return fail("',' or '}'");
    }
  }

  bool array(int depth) {
    ++pos_;  // '['
    ws();
    if (more() && peek() == ']') return ++pos_, true;
    while (true) {
      ws();
      if (!value(depth + 1)) return false;
      ws();
      if (more() && peek() == ',') {
        ++pos_;
        continue;
      }
      if (more() && peek() == ']') return ++pos_, true;
      return fail("',' or ']'");
    }
  }

  static bool isHex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  bool string() {
    ++pos_;  // opening quote
    while (more()) {
      const char c = peek();
      if (c == '"') return ++pos_, true;
      if (static_cast<unsigned char>(c) < 0x20) return fail("no control characters in a string");
      if (c != '\\') {
        ++pos_;
        continue;
      }
      ++pos_;
      if (!more()) break;
      const char e = peek();
      if (e == 'u') {
        ++pos_;
        for (int i = 0; i < 4; ++i, ++pos_)
          if (!more() || !isHex(peek())) return fail("four hex digits after \\u");
      } else if (std::string_view("\"\\/bfnrt").find(e) != std::string_view::npos) {
        ++pos_;
      } else {
        return fail("a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
      }
    }
    return fail("'\"' closing the string");
  }

  bool digits() {
    const std::size_t start = pos_;
    while (more() && peek() >= '0' && peek() <= '9')
      ++pos_;
    return pos_ > start;
  }

  bool number() {
    if (peek() == '-') ++pos_;
    if (more() && peek() == '0') {
      ++pos_;
    } else if (!digits()) {
      return fail("a digit");
    }
    if (more() && peek() == '.') {
      ++pos_;
      if (!digits()) return fail("a digit after '.'");
    }
    if (more() && (peek() == 'e' || peek() == 'E')) {
      ++pos_;
      if (more() && (peek() == '+' || peek() == '-')) ++pos_;
      if (!digits()) return fail("a digit in the exponent");
    }
    return true;
  }

  std::string_view t_;
  std::size_t pos_ = 0;
  std::string expected_;
};

}  // namespace

std::optional<JsonSyntaxError> findJsonSyntaxError(std::string_view text) {
  Checker c(text);
  if (c.document()) return std::nullopt;
  JsonSyntaxError e;
  e.offset = c.pos();
  e.expected = c.expected();
  for (std::size_t i = 0; i < e.offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++e.line;
      e.column = 1;
    } else {
      ++e.column;
    }
  }
  return e;
}

}  // namespace ps::runtime
