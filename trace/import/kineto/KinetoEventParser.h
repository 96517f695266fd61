#pragma once
// The JSON layer of the Kineto reader: runs simdjson On Demand over one window of the
// traceEvents array (a few thousand events that the scanner has cut out and bracketed) and hands
// every element to the builder as a KinetoEvent. Only the fields the importer uses are looked
// at; events of no interest (cpu_op, cuda_runtime, flows: the bulk of a trace) are left after
// their category and name, and their numbers are never parsed.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "trace/Result.h"
#include "trace/import/RawTrace.h"

namespace ps::trace::import {

class KinetoTraceBuilder;

class KinetoEventParser {
 public:
  // `label` names the source in messages; `control` is polled every 4096 events.
  KinetoEventParser(std::string label, const ReadControl& control);
  ~KinetoEventParser();
  KinetoEventParser(const KinetoEventParser&) = delete;
  KinetoEventParser& operator=(const KinetoEventParser&) = delete;

  // Parses data[begin, end), which must be a JSON array, into `builder`. `available` is how
  // many bytes from `data` may be read (content plus padding; simdjson reads ahead); `data`
  // starts at content offset `offset`. Errors: "LABEL: malformed JSON at byte N: what" with N
  // counted in the content, "LABEL: import cancelled".
  [[nodiscard]] Status parseWindow(const char* data, std::size_t begin, std::size_t end,
                                   std::size_t available, std::uint64_t offset,
                                   KinetoTraceBuilder& builder);

  std::size_t eventsSeen() const;
  // Invalid UTF-8 bytes replaced by U+FFFD so far (the reader warns once).
  std::size_t replacedBytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ps::trace::import
