// GCC 12 reports -Wmaybe-uninitialized inside libstdc++'s <regex> (std::function in the NFA
// states) when optimising with sanitizers; a known false positive, not our code.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "trace/import/MappingRules.h"

#include <simdjson.h>

#include <charconv>
#include <fstream>
#include <sstream>

#include "trace/import/OpRecognizer.h"

namespace ps::trace::import {
namespace {

// The first backreference (\N) or repetition count ({m} {m,} {m,n}) in `pattern` with more than
// 4 digits, if any.
std::optional<std::string> oversizedRegexNumber(std::string_view pattern) {
  const auto digitsFrom = [&](std::size_t at) {
    std::size_t end = at;
    while (end < pattern.size() && pattern[end] >= '0' && pattern[end] <= '9')
      ++end;
    return end;
  };
  for (std::size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] == '\\' && pattern[i + 1] == '\\') {  // an escaped backslash: skip both
      ++i;
      continue;
    }
    if (pattern[i] != '\\' && pattern[i] != '{') continue;
    std::size_t end = digitsFrom(i + 1);
    if (end - (i + 1) > 4) return std::string(pattern.substr(i + 1, end - (i + 1)));
    if (pattern[i] == '{' && end < pattern.size() && pattern[end] == ',') {
      const std::size_t upper = digitsFrom(end + 1);
      if (upper - (end + 1) > 4) return std::string(pattern.substr(end + 1, upper - (end + 1)));
    }
  }
  return std::nullopt;
}

std::string validKinds() {
  std::string out;
  for (int k = 0; k < kOpKindCount; ++k) {
    if (!out.empty()) out += ", ";
    out += opKindName(static_cast<OpKind>(k));
  }
  return out;
}

// A field is an integer or "$N"; anything else is an error naming the rule and the field.
Result<RuleField> parseField(simdjson::dom::object rule, std::string_view key,
                             const std::string& where, unsigned captures) {
  simdjson::dom::element value;
  if (rule[key].get(value) != simdjson::SUCCESS) return RuleField{};
  if (std::int64_t n = 0; value.get_int64().get(n) == simdjson::SUCCESS) {
    if (n < 0 || n > 1'000'000)
      return Error{where + ": \"" + std::string(key) + "\" " + std::to_string(n) +
                   " is out of range (0..1000000)"};
    return RuleField{RuleField::Source::Fixed, static_cast<int>(n)};
  }
  std::string_view text;
  if (value.get_string().get(text) == simdjson::SUCCESS && text.size() >= 2 && text[0] == '$') {
    int index = 0;
    const auto [end, ec] = std::from_chars(text.data() + 1, text.data() + text.size(), index);
    if (ec == std::errc{} && end == text.data() + text.size() && index >= 1 &&
        static_cast<unsigned>(index) <= captures)
      return RuleField{RuleField::Source::Capture, index};
    return Error{where + ": \"" + std::string(key) + "\" refers to capture " + std::string(text) +
                 " but the pattern has " + std::to_string(captures) + " capture group(s)"};
  }
  return Error{where + ": \"" + std::string(key) +
               "\" must be a non-negative integer or \"$N\" (the N-th capture group)"};
}

std::optional<int> fieldValue(const RuleField& field, const std::cmatch& match, bool& ok) {
  switch (field.source) {
    case RuleField::Source::None:
      return std::nullopt;
    case RuleField::Source::Fixed:
      return field.value;
    case RuleField::Source::Capture: {
      const auto& group = match[static_cast<std::size_t>(field.value)];
      int value = 0;
      const auto [end, ec] = std::from_chars(group.first, group.second, value);
      if (!group.matched || ec != std::errc{} || end != group.second) {
        ok = false;
        return std::nullopt;
      }
      return value;
    }
  }
  return std::nullopt;
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
      return Error{where + ": missing string \"kind\" (one of " + validKinds() + ")"};
    const auto opKind = parseOpKind(kind);
    if (!opKind)
      return Error{where + ": unknown kind \"" + std::string(kind) + "\" (valid: " + validKinds() +
                   ")"};
    parsed.kind = *opKind;
    // libstdc++ compiles and matches regexes recursively: bound the pattern so a hostile rules
    // file cannot exhaust the stack.
    if (pattern.size() > 256) return Error{where + ": pattern longer than 256 characters"};
    // libstdc++ reads the number of a backreference (\N) or a repetition ({m,n}) into a long
    // without an overflow check (found by fuzzing): refuse numbers no sane rule needs.
    if (auto number = oversizedRegexNumber(pattern))
      return Error{where + ": pattern number " + *number +
                   " is too large (backreferences and repetition counts up to 9999)"};
    parsed.pattern = std::string(pattern);
    try {
      parsed.regex = std::regex(parsed.pattern, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      return Error{where + ": invalid pattern \"" + parsed.pattern + "\": " + e.what()};
    }
    const unsigned captures = parsed.regex.mark_count();
    auto stage = parseField(rule, "stage", where, captures);
    if (!stage) return std::move(stage).takeError();
    auto mb = parseField(rule, "microbatch", where, captures);
    if (!mb) return std::move(mb).takeError();
    auto chunk = parseField(rule, "chunk", where, captures);
    if (!chunk) return std::move(chunk).takeError();
    auto step = parseField(rule, "step", where, captures);
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
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot open the mapping rules file"};
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

std::optional<RecognizedOp> MappingRules::apply(std::string_view label) const {
  if (label.size() > 1024) return std::nullopt;  // see the pattern bound in parse()
  for (const auto& rule : rules_) {
    std::cmatch match;
    if (!std::regex_search(label.data(), label.data() + label.size(), match, rule.regex)) continue;
    bool ok = true;
    RecognizedOp op{rule.kind};
    op.stage = fieldValue(rule.stage, match, ok).value_or(-1);
    op.microbatch = fieldValue(rule.microbatch, match, ok).value_or(-1);
    op.chunk = fieldValue(rule.chunk, match, ok).value_or(-1);
    op.step = fieldValue(rule.step, match, ok).value_or(-1);
    if (ok) return op;
  }
  return std::nullopt;
}

}  // namespace ps::trace::import
