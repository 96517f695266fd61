#include "trace/import/MappingRules.h"

#include <re2/re2.h>
#include <simdjson.h>

#include <charconv>
#include <sstream>

#include "trace/FileText.h"
#include "trace/import/OpRecognizer.h"

namespace ps::trace::import {
namespace {

std::string validKinds() {
  std::string out;
  for (int k = 0; k < kOpKindCount; ++k) {
    if (!out.empty()) out += ", ";
    out += opKindName(static_cast<OpKind>(k));
  }
  return out;
}

// "$N" naming one of the pattern's `captures` groups: N; nullopt when `text` is no "$N" at all;
// an error when it is one but names no group.
Result<std::optional<int>> captureIndex(std::string_view text, std::string_view key,
                                        const std::string& where, int captures) {
  if (text.size() < 2 || text[0] != '$') return std::optional<int>{};
  int index = 0;
  const auto [end, ec] = std::from_chars(text.data() + 1, text.data() + text.size(), index);
  if (ec == std::errc{} && end == text.data() + text.size() && index >= 1 && index <= captures)
    return std::optional<int>{index};
  return Error{where + ": \"" + std::string(key) + "\" refers to capture " + std::string(text) +
               " but the pattern has " + std::to_string(captures) + " capture group(s)"};
}

// A field is an integer or "$N"; anything else is an error naming the rule and the field.
Result<RuleField> parseField(simdjson::dom::object rule, std::string_view key,
                             const std::string& where, int captures) {
  simdjson::dom::element value;
  if (rule[key].get(value) != simdjson::SUCCESS) return RuleField{};
  if (std::int64_t n = 0; value.get_int64().get(n) == simdjson::SUCCESS) {
    if (n < 0 || n > 1'000'000)
      return Error{where + ": \"" + std::string(key) + "\" " + std::to_string(n) +
                   " is out of range (0..1000000)"};
    return RuleField{RuleField::Source::Fixed, static_cast<int>(n)};
  }
  std::string_view text;
  if (value.get_string().get(text) == simdjson::SUCCESS) {
    auto index = captureIndex(text, key, where, captures);
    if (!index) return std::move(index).takeError();
    if (*index) return RuleField{RuleField::Source::Capture, **index};
  }
  return Error{where + ": \"" + std::string(key) +
               "\" must be a non-negative integer or \"$N\" (the N-th capture group)"};
}

std::optional<int> fieldValue(const RuleField& field, const std::vector<re2::StringPiece>& groups,
                              bool& ok) {
  switch (field.source) {
    case RuleField::Source::None:
      return std::nullopt;
    case RuleField::Source::Fixed:
      return field.value;
    case RuleField::Source::Capture: {
      const re2::StringPiece group = groups[static_cast<std::size_t>(field.value)];
      if (group.data() == nullptr) {  // the group took no part in the match
        ok = false;
        return std::nullopt;
      }
      int value = 0;
      const char* last = group.data() + group.size();
      const auto [end, ec] = std::from_chars(group.data(), last, value);
      if (ec != std::errc{} || end != last) {
        ok = false;
        return std::nullopt;
      }
      return value;
    }
  }
  return std::nullopt;
}

// Compiles `pattern`; RE2's own message when it cannot (quoted as is: whoever prints errors makes
// them terminal-safe), with what RE2 leaves out of the syntax
// people bring from ECMAScript or PCRE when that is the reason.
Result<std::shared_ptr<const re2::RE2>> compile(std::string_view pattern,
                                                const std::string& where) {
  RE2::Options options;
  options.set_log_errors(false);  // the error is returned, not printed
  auto regex =
      std::make_shared<const re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (regex->ok()) return regex;
  std::string message =
      where + ": invalid pattern \"" + std::string(pattern) + "\": " + regex->error();
  if (regex->error_code() == RE2::ErrorBadEscape || regex->error_code() == RE2::ErrorBadPerlOp)
    message += " (patterns are RE2 syntax: no backreferences or lookaround)";
  return Error{std::move(message)};
}

}  // namespace

Result<MappingRules> MappingRules::parse(std::string_view json, const std::string& label) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element doc;
  if (auto err = parser.parse(padded).get(doc); err != simdjson::SUCCESS)
    return Error{label + ": malformed JSON: " + simdjson::error_message(err)};
  simdjson::dom::array rules;
  if (doc["rules"].get_array().get(rules) != simdjson::SUCCESS)
    return Error{label + ": expected an object with a \"rules\" array"};
  MappingRules out;
  std::size_t index = 0;
  for (simdjson::dom::element element : rules) {
    const std::string where = label + ": rule " + std::to_string(index++);
    simdjson::dom::object rule;
    if (element.get_object().get(rule) != simdjson::SUCCESS)
      return Error{where + ": expected an object"};
    MappingRule parsed;
    std::string_view pattern, kind;
    if (rule["pattern"].get_string().get(pattern) != simdjson::SUCCESS)
      return Error{where + ": missing string \"pattern\""};
    if (rule["kind"].get_string().get(kind) != simdjson::SUCCESS)
      return Error{where + ": missing string \"kind\" (one of " + validKinds() + ", or \"$N\")"};
    auto regex = compile(pattern, where);
    if (!regex) return std::move(regex).takeError();
    parsed.pattern = std::string(pattern);
    parsed.regex = std::move(*regex);
    parsed.captures = parsed.regex->NumberOfCapturingGroups();
    auto kindCapture = captureIndex(kind, "kind", where, parsed.captures);
    if (!kindCapture) return std::move(kindCapture).takeError();
    if (*kindCapture) {
      parsed.kindCapture = **kindCapture;
    } else if (const auto opKind = parseOpKind(kind)) {
      parsed.kind = *opKind;
    } else {
      return Error{where + ": unknown kind \"" + std::string(kind) + "\" (valid: " + validKinds() +
                   ", or \"$N\" for the N-th capture group)"};
    }
    auto stage = parseField(rule, "stage", where, parsed.captures);
    if (!stage) return std::move(stage).takeError();
    auto mb = parseField(rule, "microbatch", where, parsed.captures);
    if (!mb) return std::move(mb).takeError();
    auto chunk = parseField(rule, "chunk", where, parsed.captures);
    if (!chunk) return std::move(chunk).takeError();
    auto step = parseField(rule, "step", where, parsed.captures);
    if (!step) return std::move(step).takeError();
    parsed.stage = *stage;
    parsed.microbatch = *mb;
    parsed.chunk = *chunk;
    parsed.step = *step;
    out.rules_.push_back(std::move(parsed));
  }
  return out;
}

Result<MappingRules> MappingRules::load(const std::string& path) {
  auto text = readTextFile(path, kMaxFlagFileBytes, "mapping rules file");
  if (!text) return std::move(text).takeError();
  return parse(*text, path);
}

std::optional<RecognizedOp> MappingRules::apply(std::string_view label) const {
  const re2::StringPiece text(label.data(), label.size());
  std::vector<re2::StringPiece> groups;
  for (const auto& rule : rules_) {
    groups.assign(static_cast<std::size_t>(rule.captures) + 1, re2::StringPiece());
    if (!rule.regex->Match(text, 0, text.size(), RE2::UNANCHORED, groups.data(),
                           static_cast<int>(groups.size())))
      continue;
    RecognizedOp op{rule.kind};
    if (rule.kindCapture > 0) {
      const re2::StringPiece kind = groups[static_cast<std::size_t>(rule.kindCapture)];
      const auto captured =
          kind.data() ? parseOpKind(std::string_view(kind.data(), kind.size())) : std::nullopt;
      if (!captured) continue;
      op.kind = *captured;
    }
    bool ok = true;
    op.stage = fieldValue(rule.stage, groups, ok).value_or(-1);
    op.microbatch = fieldValue(rule.microbatch, groups, ok).value_or(-1);
    op.chunk = fieldValue(rule.chunk, groups, ok).value_or(-1);
    op.step = fieldValue(rule.step, groups, ok).value_or(-1);
    if (ok) return op;
  }
  return std::nullopt;
}

}  // namespace ps::trace::import
