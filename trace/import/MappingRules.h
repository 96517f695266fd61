#pragma once
// User-supplied label mapping for in-house naming (issue: "regex -> kind, stage, micro-batch").
// A small JSON file:
//   {"rules": [
//     {"pattern": "^fwd_s(\\d+)_mb(\\d+)$", "kind": "F", "stage": "$1", "microbatch": "$2"},
//     {"pattern": "^optimizer", "kind": "OPT"},
//     {"pattern": "^p2p_send_(\\d+)$", "kind": "SEND_F", "microbatch": "$1", "stage": 0}
//   ]}
// `pattern` is an ECMAScript regex searched in the whole label (anchor it yourself); `kind` is a
// schema op kind; stage / microbatch / chunk / step are integers or "$N" (the N-th capture).
// Rules are tried in file order; the first that matches wins.

#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "trace/OpKind.h"
#include "trace/Result.h"

namespace ps::trace::import {

struct RecognizedOp;

// A field of a rule: absent, a fixed integer, or the N-th capture group.
struct RuleField {
  enum class Source { None, Fixed, Capture } source = Source::None;
  int value = 0;  // the integer, or the capture index
};

struct MappingRule {
  std::string pattern;
  std::regex regex;
  OpKind kind = OpKind::OTHER;
  RuleField stage, microbatch, chunk, step;
};

class MappingRules {
 public:
  // Parses the JSON text; errors name `label` (the file) and the rule index.
  static Result<MappingRules> parse(std::string_view json, const std::string& label);
  static Result<MappingRules> load(const std::string& path);

  bool empty() const { return rules_.empty(); }
  std::size_t size() const { return rules_.size(); }
  // The first rule that matches, applied; nullopt when none does (or a capture is not a number).
  std::optional<RecognizedOp> apply(std::string_view label) const;

 private:
  std::vector<MappingRule> rules_;
};

}  // namespace ps::trace::import
