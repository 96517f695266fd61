#include "trace/import/kineto/KinetoEventParser.h"

#include <simdjson.h>

#include <utility>

#include "trace/import/kineto/KinetoEvent.h"
#include "trace/import/kineto/KinetoText.h"
#include "trace/import/kineto/KinetoTraceBuilder.h"

namespace ps::trace::import {

namespace od = simdjson::ondemand;

namespace {

constexpr std::string_view kProfilerStepPrefix = "ProfilerStep#";
// The counter PipeScope's Chrome export writes a rank's device memory in (args.bytes).
constexpr std::string_view kPipeScopeMemoryCounter = "memory in use";

bool isBlankInJson(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// The characters between the quotes of a string token ("" for other tokens). Escapes stay as
// written; callers that need them decoded ask simdjson.
std::string_view contentsOf(std::string_view token) {
  if (token.size() < 2 || token.front() != '"' || token.back() != '"') return {};
  return token.substr(1, token.size() - 2);
}

bool needsArgs(const KinetoEvent& e) {
  if (e.phase == KinetoPhase::Instant || e.phase == KinetoPhase::Counter) return true;  // memory
  return e.category == KinetoCategory::Kernel || e.category == KinetoCategory::Memcpy ||
         e.category == KinetoCategory::Memset || e.category == KinetoCategory::StatedOp ||
         e.category == KinetoCategory::Launch;
}

// True once nothing more in the event can matter, so the rest of it is skipped unread. Needs
// "ph" and "cat" to have been seen.
bool isUninteresting(const KinetoEvent& e, bool haveName) {
  if (e.phase == KinetoPhase::Other) return true;
  if (e.phase == KinetoPhase::Begin || e.phase == KinetoPhase::End) return false;
  if (e.phase == KinetoPhase::Instant) return haveName && e.name != "[memory]";
  if (e.phase == KinetoPhase::Counter) return haveName && e.name != kPipeScopeMemoryCounter;
  // Complete: ignored categories matter only when they are a ProfilerStep.
  if (e.category == KinetoCategory::Other) return true;
  if (e.category == KinetoCategory::CpuOp) return haveName && !e.profilerStep;
  return false;
}

}  // namespace

struct KinetoEventParser::Impl {
  Impl(std::string labelIn, const ReadControl& controlIn)
      : label(std::move(labelIn)), control(controlIn) {}

  // The token of a scalar value as written, without the whitespace simdjson leaves after it.
  // Peeking does not consume the value: whatever is not read is skipped by the iterator. On
  // Demand validates lazily, so a missing value ("ts": ,) shows up here as a structural
  // character; remember the first one for the error message.
  std::string_view tokenOf(od::value& value) {
    std::string_view token = value.raw_json_token();
    while (!token.empty() && isBlankInJson(token.back()))
      token.remove_suffix(1);
    const char first = token.empty() ? ',' : token.front();
    if (first == ',' || first == '}' || first == ']' || first == ':') {
      if (missingValue == nullptr) missingValue = value.raw_json_token().data();
      return {};
    }
    return token;
  }

  Error malformed(std::size_t at, const std::string& what) const {
    return makeError(label + ": malformed JSON at byte " + std::to_string(offset + at) + ": " +
                     what);
  }

  Error errorAt(simdjson::error_code code, od::document& doc, const char* data,
                std::size_t fallback) const {
    const char* location = nullptr;
    std::size_t at = fallback;
    if (doc.current_location().get(location) == simdjson::SUCCESS && location != nullptr)
      at = static_cast<std::size_t>(location - data);
    return malformed(at, simdjson::error_message(code));
  }

  simdjson::error_code parseArgs(od::value& value, KinetoEvent& e) {
    od::object args;
    if (auto error = value.get_object().get(args)) return error;
    // A plain kernel needs only its device and correlation, a launch its correlation; NCCL
    // kernels, copies and memory events need more.
    const bool deviceOnly =
        e.category == KinetoCategory::Kernel && !e.name.empty() && e.name.substr(0, 4) != "nccl";
    const bool launch = e.category == KinetoCategory::Launch;
    for (auto fieldResult : args) {
      od::field field;
      if (auto error = std::move(fieldResult).get(field)) return error;
      const od::raw_json_string key = field.key();
      od::value& v = field.value();
      if (key.unsafe_is_equal("correlation")) {
        e.correlation = tokenOf(v);
        if (launch || (deviceOnly && !e.device.empty())) break;
      } else if (launch) {
        continue;
      } else if (key.unsafe_is_equal("device")) {
        e.device = tokenOf(v);
        if (deviceOnly && !e.correlation.empty()) break;
      } else if (deviceOnly) {
        continue;
      } else if (key.unsafe_is_equal("bytes")) {
        e.bytes = tokenOf(v);
      } else if (key.unsafe_is_equal("Total Allocated")) {
        e.totalAllocated = tokenOf(v);
      } else if (key.unsafe_is_equal("Device Id")) {
        e.memoryDevice = tokenOf(v);
      } else if (key.unsafe_is_equal("fromDevice")) {
        e.fromDevice = tokenOf(v);
      } else if (key.unsafe_is_equal("inDevice")) {
        e.inDevice = tokenOf(v);
      } else if (key.unsafe_is_equal("toDevice")) {
        e.toDevice = tokenOf(v);
      } else if (key.unsafe_is_equal("Collective name")) {
        e.collective = contentsOf(tokenOf(v));
      } else if (key.unsafe_is_equal("dtype")) {
        e.dtype = contentsOf(tokenOf(v));
      } else if (key.unsafe_is_equal("In msg nelems")) {
        e.inNelems = tokenOf(v);
      } else if (key.unsafe_is_equal("Out msg nelems")) {
        e.outNelems = tokenOf(v);
      } else if (key.unsafe_is_equal("Src Rank")) {
        e.srcRank = tokenOf(v);
      } else if (key.unsafe_is_equal("Dst Rank")) {
        e.dstRank = tokenOf(v);
      } else if (e.category != KinetoCategory::StatedOp) {
        continue;
      } else if (key.unsafe_is_equal("kind")) {
        e.kind = contentsOf(tokenOf(v));
      } else if (key.unsafe_is_equal("stage")) {
        e.stage = tokenOf(v);
      } else if (key.unsafe_is_equal("microbatch")) {
        e.microbatch = tokenOf(v);
      } else if (key.unsafe_is_equal("step")) {
        e.step = tokenOf(v);
      } else if (key.unsafe_is_equal("peer")) {
        e.peer = tokenOf(v);
      }
    }
    return simdjson::SUCCESS;
  }

  // Reads the fields of one event. An args object met before "ph", "cat" and "name" (no real
  // file does that, but JSON objects have no order) is kept as text and read once they are.
  simdjson::error_code parseEvent(od::object& object, KinetoEvent& e) {
    bool havePhase = false;
    bool haveName = false;
    bool haveCategory = false;
    bool argsPending = false;
    for (auto fieldResult : object) {
      od::field field;
      if (auto error = std::move(fieldResult).get(field)) return error;
      const od::raw_json_string key = field.key();
      od::value& value = field.value();
      switch (key.raw()[0]) {
        case 'p':
          if (key.unsafe_is_equal("ph")) {
            e.phase = kinetoPhaseOf(contentsOf(tokenOf(value)));
            havePhase = true;
          } else if (key.unsafe_is_equal("pid")) {
            e.pid = tokenOf(value);
          }
          break;
        case 'c':
          if (key.unsafe_is_equal("cat")) {
            const std::string_view cat = contentsOf(tokenOf(value));
            e.category = cat.empty() ? KinetoCategory::Other : kinetoCategoryOf(cat);
            haveCategory = true;
          }
          break;
        case 'n':
          if (key.unsafe_is_equal("name")) {
            const std::string_view token = tokenOf(value);
            std::string_view name = contentsOf(token);
            if (name.find('\\') != std::string_view::npos) {
              // simdjson refuses a lone surrogate escape: decoded leniently (U+FFFD) instead.
              if (value.get_string().get(name) != simdjson::SUCCESS) {
                decodedName = decodeJsonStringLenient(name);
                name = decodedName;
              }
            } else if (name.empty() && !token.empty() && token.front() != '"') {
              name = token;  // a number or literal as a name: keep its text
            }
            e.name = name;
            e.profilerStep = name.substr(0, kProfilerStepPrefix.size()) == kProfilerStepPrefix;
            haveName = true;
          }
          break;
        case 't':
          if (key.unsafe_is_equal("ts")) {
            e.ts = tokenOf(value);
          } else if (key.unsafe_is_equal("tid")) {
            e.tid = tokenOf(value);
          }
          break;
        case 'd':
          if (key.unsafe_is_equal("dur")) e.dur = tokenOf(value);
          break;
        case 'a':
          if (key.unsafe_is_equal("args")) {
            const std::string_view token = tokenOf(value);
            if (token.empty() || token.front() != '{') break;
            if (!havePhase || !haveCategory || !haveName) {
              // Too early to know whether the args matter: keep their text for later.
              od::object args;
              if (auto error = value.get_object().get(args)) return error;
              if (auto error = args.raw_json().get(pendingArgs)) return error;
              argsPending = true;
            } else if (needsArgs(e)) {
              if (auto error = parseArgs(value, e)) return error;
            }
          }
          break;
        default:
          break;
      }
      if (havePhase && haveCategory && isUninteresting(e, haveName)) return simdjson::SUCCESS;
    }
    if (!haveCategory) e.category = kinetoCategoryOfUncategorised(e.name);
    if (argsPending && needsArgs(e) && !isUninteresting(e, haveName)) return parseLateArgs(e);
    return simdjson::SUCCESS;
  }

  // Args that came before the fields that say whether they matter: parse their saved text with
  // a second parser (the first one is still inside the window).
  simdjson::error_code parseLateArgs(KinetoEvent& e) {
    lateText.assign(pendingArgs.data(), pendingArgs.size());
    lateText.append(simdjson::SIMDJSON_PADDING, ' ');
    od::document doc;
    const simdjson::padded_string_view view(lateText.data(), pendingArgs.size(), lateText.size());
    if (auto error = lateParser.iterate(view).get(doc)) return error;
    od::value value;
    if (auto error = doc.get_value().get(value)) return error;
    // Views into lateText stay valid until the next late parse, after builder.add.
    return parseArgs(value, e);
  }

  Status parseWindow(const char* data, std::size_t begin, std::size_t end, std::size_t available,
                     std::uint64_t windowOffset, KinetoTraceBuilder& builder) {
    offset = windowOffset;
    od::document doc;
    const simdjson::padded_string_view view(data + begin, end - begin, available - begin);
    if (auto error = parser.iterate(view).get(doc)) {
      if (error == simdjson::UTF8_ERROR && !repairing)
        return parseRepaired(data, begin, end, windowOffset, builder);
      return malformed(firstBadByte(data, begin, end), simdjson::error_message(error));
    }
    od::array array;
    if (auto error = doc.get_array().get(array)) return errorAt(error, doc, data, begin);
    for (auto elementResult : array) {
      od::value element;
      if (auto error = std::move(elementResult).get(element))
        return errorAt(error, doc, data, begin);
      od::json_type type;
      if (auto error = element.type().get(type)) return errorAt(error, doc, data, begin);
      if (type != od::json_type::object) continue;  // not an event: nothing to import
      od::object object;
      if (auto error = element.get_object().get(object)) return errorAt(error, doc, data, begin);
      KinetoEvent event;
      missingValue = nullptr;
      const simdjson::error_code error = parseEvent(object, event);
      if (missingValue != nullptr) {
        // Reported where the value is missing, not where On Demand noticed the structure broke.
        const bool inWindow = missingValue >= data + begin && missingValue < data + end;
        return malformed(inWindow ? static_cast<std::size_t>(missingValue - data) : begin,
                         "expected a value");
      }
      if (error) return errorAt(error, doc, data, begin);
      builder.add(event);
      if ((++events & 4095U) == 0 && control.cancelled())
        return makeError(label + ": import cancelled");
    }
    return {};
  }

  // A window with invalid UTF-8 (Perfetto reads such files): parsed again from a copy with each
  // bad byte replaced by U+FFFD. Byte positions in its messages are then the copy's.
  Status parseRepaired(const char* data, std::size_t begin, std::size_t end,
                       std::uint64_t windowOffset, KinetoTraceBuilder& builder) {
    repairedWindow.clear();
    replacedBytes +=
        replaceInvalidUtf8(std::string_view(data + begin, end - begin), repairedWindow);
    const std::size_t size = repairedWindow.size();
    repairedWindow.append(simdjson::SIMDJSON_PADDING, ' ');
    repairing = true;
    Status status = parseWindow(repairedWindow.data(), 0, size, repairedWindow.size(),
                                windowOffset + begin, builder);
    repairing = false;
    return status;
  }

  std::string label;
  const ReadControl& control;
  std::string repairedWindow;  // views into it live until the window's events are added
  std::string decodedName;     // a name decoded leniently, until its event is added
  std::size_t replacedBytes = 0;
  bool repairing = false;
  od::parser parser;
  od::parser lateParser;
  std::string_view pendingArgs;
  const char* missingValue = nullptr;
  std::string lateText;
  std::size_t events = 0;
  std::uint64_t offset = 0;  // content offset of the window being parsed (for messages)
};

KinetoEventParser::KinetoEventParser(std::string label, const ReadControl& control)
    : impl_(std::make_unique<Impl>(std::move(label), control)) {}

KinetoEventParser::~KinetoEventParser() = default;

Status KinetoEventParser::parseWindow(const char* data, std::size_t begin, std::size_t end,
                                      std::size_t available, std::uint64_t offset,
                                      KinetoTraceBuilder& builder) {
  return impl_->parseWindow(data, begin, end, available, offset, builder);
}

std::size_t KinetoEventParser::eventsSeen() const {
  return impl_->events;
}

std::size_t KinetoEventParser::replacedBytes() const {
  return impl_->replacedBytes;
}

}  // namespace ps::trace::import
