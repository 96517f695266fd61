#include "trace/import/kineto/KinetoReader.h"

#include <algorithm>
#include <cstdio>

#include "trace/import/GzipInput.h"
#include "trace/import/kineto/KinetoEventParser.h"
#include "trace/import/kineto/KinetoMetadata.h"
#include "trace/import/kineto/KinetoScanner.h"
#include "trace/import/kineto/KinetoTraceBuilder.h"

// `var = *expr`, or return the error of `expr`.
#define PS_KINETO_ASSIGN(var, expr)                          \
  do {                                                       \
    auto assigned_ = (expr);                                 \
    if (!assigned_) return std::move(assigned_).takeError(); \
    (var) = *assigned_;                                      \
  } while (false)

namespace ps::trace::import {

namespace {

// Events are parsed in windows of about this many bytes: big enough that per-window costs
// vanish, small enough that simdjson's index of a window stays in cache.
constexpr std::size_t kWindowBytes = std::size_t{1} << 20;

std::string describe(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", u);
  return std::string("byte ") + hex;
}

Error notKineto(const std::string& label, char first, std::size_t pos) {
  return makeError(label +
                   ": not a Kineto trace: expected a JSON object with \"traceEvents\" or an "
                   "array of events, found " +
                   describe(first) + " at byte " + std::to_string(pos));
}

// The walker's first test, run on the first bytes of a file before the rest is read or
// inflated (GzipInput's head check): a gzip of zeros is refused after one chunk, not 2 GB.
Status checkKinetoHead(const std::string& label, std::string_view head) {
  const std::size_t pos = KinetoScanner(head).skipWhitespace(0);
  if (pos == head.size())
    return makeError(label + ": not a Kineto trace: the first " + std::to_string(head.size()) +
                     " bytes are whitespace");
  if (head[pos] != '{' && head[pos] != '[') return notKineto(label, head[pos], pos);
  return {};
}

InputOptions inputOptions(const std::string& label) {
  InputOptions options;
  options.checkHead = [label](std::string_view head) { return checkKinetoHead(label, head); };
  return options;
}

// Walks the content's outer structure with the scanner, hands traceEvents to the event parser a
// window at a time and the other top-level keys to the metadata reader. The content streams
// through: the walker reads on when a scan reaches the end of what is held and drops what it has
// parsed, so memory stays at about a window plus the largest single value, whatever the size of
// the file (a gzip bomb of blanks between events is dropped as it comes, up to the gzip limits).
// Positions are in the stream's window; messages count bytes of the whole content.
class KinetoFileWalker {
 public:
  KinetoFileWalker(InputStream& input, const std::string& label, const ReadControl& control)
      : input_(input),
        scanner_(input.view(), input.offset()),
        label_(label),
        control_(control),
        parser_(label, control),
        builder_(label) {}

  Result<RawRankTrace> run() {
    if (input_.size() == 0) return makeError(label_ + ": empty file");
    std::size_t pos = 0;
    PS_KINETO_ASSIGN(pos, blanksDroppingBefore(0));
    if (pos == input_.size()) return makeError(label_ + ": empty file (only whitespace)");
    const char first = scanner_.at(pos);
    Result<std::size_t> end = std::size_t{0};
    if (first == '[') {
      end = walkEvents(pos);
    } else if (first == '{') {
      end = walkObject(pos);
    } else {
      return notKineto(label_, first, input_.offset() + pos);
    }
    if (!end) return std::move(end).takeError();
    std::size_t rest = 0;
    PS_KINETO_ASSIGN(rest, blanksDroppingBefore(*end));
    if (rest != input_.size())
      return malformed(scanner_.errorHere(rest, "unexpected data after the end of the trace"));
    RawRankTrace trace = builder_.finish(meta_);
    if (const std::size_t bad = parser_.replacedBytes(); bad > 0)
      trace.warnings.push_back(std::to_string(bad) + (bad == 1 ? " byte" : " bytes") +
                               " of invalid UTF-8 replaced by U+FFFD");
    if (lastPercent_ < 100) control_.report(1.0);
    return trace;
  }

 private:
  Error malformed(Error scanError) const {
    return makeError(label_ + ": malformed JSON " + scanError.message);
  }
  template <typename T>
  Error malformed(Result<T>&& result) const {
    return malformed(std::move(result).takeError());
  }

  // Reads at least `more` bytes on (or to the end) and points the scanner at the new window.
  Status readMore(std::size_t more) {
    PS_TRY(input_.fill(more));
    scanner_ = KinetoScanner(input_.view(), input_.offset());
    return {};
  }
  void drop(std::size_t count) {
    input_.discard(count);
    scanner_ = KinetoScanner(input_.view(), input_.offset());
  }

  // A skip that reached the end of the window is asked again with twice the content, so a value
  // that straddles the end costs a logarithmic number of rescans. Errors are whole messages
  // ("LABEL: malformed JSON at byte N: ...", or the stream's own).
  template <typename Skip>
  Result<std::size_t> skipWithMore(Skip skip) {
    for (;;) {
      auto end = skip();
      if (!scanner_.hitEnd() || input_.finished())
        return end ? std::move(end) : Result<std::size_t>(malformed(std::move(end)));
      PS_TRY(readMore(std::max(kWindowBytes, input_.size())));
    }
  }
  Result<std::size_t> skipValue(std::size_t pos) {
    return skipWithMore([&] { return scanner_.skipValue(pos); });
  }
  Result<std::size_t> skipString(std::size_t pos) {
    return skipWithMore([&] { return scanner_.skipString(pos); });
  }
  // Whitespace from `pos` (its end may be the window's end only when the content ends there).
  Result<std::size_t> blanks(std::size_t pos) {
    for (;;) {
      pos = scanner_.skipWhitespace(pos);
      if (!scanner_.hitEnd() || input_.finished()) return pos;
      PS_TRY(readMore(kWindowBytes));
    }
  }
  // The same where nothing before `pos` is needed any more: what was skipped is dropped as it
  // goes (the returned position is in the window as it is then).
  Result<std::size_t> blanksDroppingBefore(std::size_t pos) {
    drop(pos);
    pos = 0;
    for (;;) {
      pos = scanner_.skipWhitespace(pos);
      if (!scanner_.hitEnd() || input_.finished()) return pos;
      drop(pos);
      pos = 0;
      PS_TRY(readMore(kWindowBytes));
    }
  }

  Result<std::size_t> walkObject(std::size_t pos) {
    bool sawEvents = false;
    ++pos;
    for (;;) {
      PS_KINETO_ASSIGN(pos, blanksDroppingBefore(pos));
      if (scanner_.at(pos) == '}' && pos < input_.size()) {
        ++pos;
        break;
      }
      if (pos >= input_.size())
        return malformed(scanner_.errorHere(pos, "unexpected end of data in the top object"));
      if (scanner_.at(pos) != '"')
        return malformed(scanner_.errorHere(pos, "expected a key in the top object"));
      auto keyEnd = skipString(pos);
      if (!keyEnd) return std::move(keyEnd).takeError();
      const std::string key(input_.data() + pos + 1, *keyEnd - pos - 2);
      PS_KINETO_ASSIGN(pos, blanks(*keyEnd));
      if (scanner_.at(pos) != ':' || pos >= input_.size())
        return malformed(scanner_.errorHere(pos, "expected ':' after a key"));
      PS_KINETO_ASSIGN(pos, blanks(pos + 1));
      if (key == "traceEvents") {
        if (scanner_.at(pos) != '[' || pos >= input_.size())
          return makeError(label_ + ": not a Kineto trace: \"traceEvents\" at byte " +
                           std::to_string(input_.offset() + pos) + " is not an array");
        auto end = walkEvents(pos);
        if (!end) return end;
        pos = *end;
        sawEvents = true;
      } else {
        auto end = skipValue(pos);
        if (!end) return std::move(end).takeError();
        if (isKinetoMetadataKey(key)) {
          Status read = readKinetoMetadataValue(key, input_.data(), pos, *end,
                                                input_.size() + InputBuffer::kPadding,
                                                input_.offset(), meta_);
          if (!read) return malformed(std::move(read).takeError());
        }
        pos = *end;
      }
      PS_KINETO_ASSIGN(pos, blanks(pos));
      if (scanner_.at(pos) == ',' && pos < input_.size()) {
        ++pos;
        continue;
      }
      if (scanner_.at(pos) == '}' && pos < input_.size()) {
        ++pos;
        break;
      }
      return malformed(scanner_.errorHere(pos, pos >= input_.size()
                                                   ? "unexpected end of data in the top object"
                                                   : "expected ',' or '}' in the top object"));
    }
    if (!sawEvents) return makeError(label_ + ": not a Kineto trace: no \"traceEvents\" array");
    return pos;
  }

  // The blanks before an element, after the separator at `separator` ('[' or ','). When they
  // run past the window, the events before the separator are parsed and everything up to the
  // last blank is dropped, that blank standing in for the separator (flush() overwrites it).
  Result<std::size_t> blanksBeforeElement(std::size_t pos, std::size_t& windowStart,
                                          std::size_t& separator) {
    for (;;) {
      pos = scanner_.skipWhitespace(pos);
      if (!scanner_.hitEnd() || input_.finished()) return pos;
      if (separator > windowStart) PS_TRY(flush(windowStart, separator));
      input_.data()[pos - 1] = ',';
      drop(pos - 1);
      windowStart = separator = 0;
      pos = 1;
      PS_TRY(readMore(kWindowBytes));
    }
  }

  // The event array starting at `open` ('['); returns one past its ']'. A trailing comma before
  // ']' is tolerated, as Chrome's trace loader does.
  Result<std::size_t> walkEvents(std::size_t open) {
    std::size_t windowStart = open;
    std::size_t lastComma = open;
    bool afterComma = false;
    std::size_t pos = open + 1;
    for (;;) {
      PS_KINETO_ASSIGN(pos, blanksBeforeElement(pos, windowStart, lastComma));
      if (pos >= input_.size())
        return malformed(scanner_.errorHere(
            pos, "unexpected end of data inside the event array (truncated file?)"));
      if (scanner_.at(pos) == ']') {
        const std::size_t end = afterComma ? lastComma : pos;
        if (end > windowStart) PS_TRY(flush(windowStart, end));
        return pos + 1;
      }
      auto elementEnd = skipValue(pos);
      if (!elementEnd) return std::move(elementEnd).takeError();
      PS_KINETO_ASSIGN(pos, blanks(*elementEnd));
      afterComma = false;
      const char c = pos < input_.size() ? scanner_.at(pos) : '\0';
      if (c == ',') {
        if (pos - windowStart >= kWindowBytes) {
          PS_TRY(flush(windowStart, pos));
          drop(pos);  // the comma opens the next window
          pos = 0;
          windowStart = 0;
        }
        lastComma = pos;
        afterComma = true;
        ++pos;
        continue;
      }
      if (c == ']') {
        PS_TRY(flush(windowStart, pos));
        return pos + 1;
      }
      return malformed(scanner_.errorHere(
          pos, pos >= input_.size() ? "unexpected end of data inside the event array (truncated "
                                      "file?)"
                                    : "expected ',' or ']' after an event"));
    }
  }

  // Parses the elements between the separators at `begin` and `end` (the array's '[' or a
  // ',' before, a ',' or the ']' after) by turning them into brackets: the buffer is ours.
  Status flush(std::size_t begin, std::size_t end) {
    if (control_.cancelled()) return makeError(label_ + ": import cancelled");
    char* data = input_.data();
    data[begin] = '[';
    data[end] = ']';
    PS_TRY(parser_.parseWindow(data, begin, end + 1, input_.size() + InputBuffer::kPadding,
                               input_.offset(), builder_));
    const double fraction = input_.fraction();
    const int percent = static_cast<int>(fraction * 100.0);
    if (percent > lastPercent_) {
      lastPercent_ = percent;
      control_.report(fraction);
    }
    return {};
  }

  InputStream& input_;
  KinetoScanner scanner_;
  const std::string& label_;
  const ReadControl& control_;
  int lastPercent_ = 0;
  KinetoEventParser parser_;
  KinetoTraceBuilder builder_;
  KinetoMetadata meta_;
};

}  // namespace

Result<RawRankTrace> readKinetoFile(const std::string& path, const ReadControl& control) {
  auto input = InputStream::openFile(path, control, inputOptions(path));
  if (!input) return std::move(input).takeError();
  return KinetoFileWalker(*input, path, control).run();
}

Result<RawRankTrace> readKinetoBuffer(std::string_view bytes, const std::string& label,
                                      const ReadControl& control) {
  auto input = InputStream::openBytes(bytes, label, control, inputOptions(label));
  if (!input) return std::move(input).takeError();
  return KinetoFileWalker(*input, label, control).run();
}

}  // namespace ps::trace::import
