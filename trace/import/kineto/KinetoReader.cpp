#include "trace/import/kineto/KinetoReader.h"

#include <cstdio>

#include "trace/import/GzipInput.h"
#include "trace/import/kineto/KinetoEventParser.h"
#include "trace/import/kineto/KinetoMetadata.h"
#include "trace/import/kineto/KinetoScanner.h"
#include "trace/import/kineto/KinetoTraceBuilder.h"

namespace ps::trace::import {

namespace {

// Events are parsed in windows of about this many bytes: big enough that per-window costs
// vanish, small enough that simdjson's index of a window stays in cache.
constexpr std::size_t kWindowBytes = std::size_t{1} << 20;
// Share of the progress bar given to reading (and gunzipping) the file.
constexpr double kReadShare = 0.2;

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

InputOptions inputOptions(const std::string& label, double progressEnd) {
  InputOptions options;
  options.progressEnd = progressEnd;
  options.checkHead = [label](std::string_view head) { return checkKinetoHead(label, head); };
  return options;
}

// Walks the file's outer structure with the scanner, hands traceEvents to the event parser a
// window at a time and the other top-level keys to the metadata reader.
class KinetoFileWalker {
 public:
  KinetoFileWalker(InputBuffer& input, const std::string& label, const ReadControl& control,
                   double progressStart)
      : input_(input),
        scanner_(input.view()),
        label_(label),
        control_(control),
        progressStart_(progressStart),
        lastPercent_(static_cast<int>(progressStart * 100.0)),
        parser_(label, control),
        builder_(label) {}

  Result<RawRankTrace> run() {
    if (input_.size() == 0) return makeError(label_ + ": empty file");
    std::size_t pos = scanner_.skipWhitespace(0);
    if (pos == input_.size()) return makeError(label_ + ": empty file (only whitespace)");
    const char first = scanner_.at(pos);
    Result<std::size_t> end = std::size_t{0};
    if (first == '[') {
      end = walkEvents(pos);
    } else if (first == '{') {
      end = walkObject(pos);
    } else {
      return notKineto(label_, first, pos);
    }
    if (!end) return std::move(end).takeError();
    const std::size_t rest = scanner_.skipWhitespace(*end);
    if (rest != input_.size())
      return malformed(KinetoScanner::errorAt(rest, "unexpected data after the end of the trace"));
    RawRankTrace trace = builder_.finish(meta_);
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

  Result<std::size_t> walkObject(std::size_t pos) {
    bool sawEvents = false;
    ++pos;
    for (;;) {
      pos = scanner_.skipWhitespace(pos);
      if (scanner_.at(pos) == '}' && pos < input_.size()) {
        ++pos;
        break;
      }
      if (pos >= input_.size())
        return malformed(KinetoScanner::errorAt(pos, "unexpected end of data in the top object"));
      if (scanner_.at(pos) != '"')
        return malformed(KinetoScanner::errorAt(pos, "expected a key in the top object"));
      auto keyEnd = scanner_.skipString(pos);
      if (!keyEnd) return malformed(std::move(keyEnd));
      const std::string_view key(input_.data() + pos + 1, *keyEnd - pos - 2);
      pos = scanner_.skipWhitespace(*keyEnd);
      if (scanner_.at(pos) != ':' || pos >= input_.size())
        return malformed(KinetoScanner::errorAt(pos, "expected ':' after a key"));
      pos = scanner_.skipWhitespace(pos + 1);
      if (key == "traceEvents") {
        if (scanner_.at(pos) != '[' || pos >= input_.size())
          return makeError(label_ + ": not a Kineto trace: \"traceEvents\" at byte " +
                           std::to_string(pos) + " is not an array");
        auto end = walkEvents(pos);
        if (!end) return end;
        pos = *end;
        sawEvents = true;
      } else {
        auto end = scanner_.skipValue(pos);
        if (!end) return malformed(std::move(end));
        if (isKinetoMetadataKey(key)) {
          Status read = readKinetoMetadataValue(key, input_.data(), pos, *end,
                                                input_.size() + InputBuffer::kPadding, meta_);
          if (!read) return malformed(std::move(read).takeError());
        }
        pos = *end;
      }
      pos = scanner_.skipWhitespace(pos);
      if (scanner_.at(pos) == ',' && pos < input_.size()) {
        ++pos;
        continue;
      }
      if (scanner_.at(pos) == '}' && pos < input_.size()) {
        ++pos;
        break;
      }
      return malformed(KinetoScanner::errorAt(pos, pos >= input_.size()
                                                       ? "unexpected end of data in the top object"
                                                       : "expected ',' or '}' in the top object"));
    }
    if (!sawEvents) return makeError(label_ + ": not a Kineto trace: no \"traceEvents\" array");
    return pos;
  }

  // The event array starting at `open` ('['); returns one past its ']'. A trailing comma before
  // ']' is tolerated, as Chrome's trace loader does.
  Result<std::size_t> walkEvents(std::size_t open) {
    std::size_t windowStart = open;
    std::size_t lastComma = open;
    bool afterComma = false;
    std::size_t pos = open + 1;
    for (;;) {
      pos = scanner_.skipWhitespace(pos);
      if (pos >= input_.size())
        return malformed(KinetoScanner::errorAt(
            pos, "unexpected end of data inside the event array (truncated file?)"));
      if (scanner_.at(pos) == ']') {
        const std::size_t end = afterComma ? lastComma : pos;
        if (end > windowStart) PS_TRY(flush(windowStart, end));
        return pos + 1;
      }
      auto elementEnd = scanner_.skipValue(pos);
      if (!elementEnd) return malformed(std::move(elementEnd));
      pos = scanner_.skipWhitespace(*elementEnd);
      afterComma = false;
      const char c = pos < input_.size() ? scanner_.at(pos) : '\0';
      if (c == ',') {
        if (pos - windowStart >= kWindowBytes) {
          PS_TRY(flush(windowStart, pos));
          windowStart = pos;
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
      return malformed(KinetoScanner::errorAt(
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
    PS_TRY(
        parser_.parseWindow(data, begin, end + 1, input_.size() + InputBuffer::kPadding, builder_));
    const double fraction = progressStart_ + (1.0 - progressStart_) * static_cast<double>(end + 1) /
                                                 static_cast<double>(input_.size());
    const int percent = static_cast<int>(fraction * 100.0);
    if (percent > lastPercent_) {
      lastPercent_ = percent;
      control_.report(fraction);
    }
    return {};
  }

  InputBuffer& input_;
  KinetoScanner scanner_;
  const std::string& label_;
  const ReadControl& control_;
  double progressStart_;
  int lastPercent_;
  KinetoEventParser parser_;
  KinetoTraceBuilder builder_;
  KinetoMetadata meta_;
};

}  // namespace

Result<RawRankTrace> readKinetoFile(const std::string& path, const ReadControl& control) {
  auto input = readInputFile(path, control, inputOptions(path, kReadShare));
  if (!input) return std::move(input).takeError();
  return KinetoFileWalker(*input, path, control, kReadShare).run();
}

Result<RawRankTrace> readKinetoBuffer(std::string_view bytes, const std::string& label,
                                      const ReadControl& control) {
  auto input = loadInputBytes(bytes, label, control, inputOptions(label, 0.0));
  if (!input) return std::move(input).takeError();
  return KinetoFileWalker(*input, label, control, 0.0).run();
}

}  // namespace ps::trace::import
