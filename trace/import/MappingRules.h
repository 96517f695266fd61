#pragma once
// User-supplied label mapping for in-house naming (issue: "regex -> kind, stage, micro-batch").
// A small JSON file:
//   {"rules": [
//     {"pattern": "^fwd_s(\\d+)_mb(\\d+)$", "kind": "F", "stage": "$1", "microbatch": "$2"},
//     {"pattern": "^optimizer", "kind": "OPT"},
//     {"pattern": "^p2p_send_(\\d+)$", "kind": "SEND_F", "microbatch": "$1", "stage": 0},
//     {"pattern": "^(F|B|W)_s(\\d+)$", "kind": "$1", "stage": "$2"}
//   ]}
// `pattern` is an RE2 regex (https://github.com/google/re2/wiki/Syntax) searched anywhere in the
// label (anchor it yourself). RE2 matches in time linear in the label, so no rule can hang an
// import; the price is no backreferences (\1) and no lookaround ((?=, (?!, (?<=): a rule using
// them is refused with RE2's message. `kind` is a schema op kind or "$N": the N-th capture, which
// must then be a kind's exact name (F, B, SEND_F, ...). stage / microbatch / chunk / step are
// integers or "$N". Rules are tried in file order; the first that matches wins. A rule whose
// captured number is not a number, or whose captured kind is not a kind, does not apply to that
// label (the next rule is tried); a label no rule and no built-in naming takes is an unknown
// label, counted in the import summary.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/OpKind.h"
#include "trace/Result.h"

namespace re2 {
class RE2;
}

namespace ps::trace::import {

struct RecognizedOp;

// A field of a rule: absent, a fixed integer, or the N-th capture group.
struct RuleField {
  enum class Source { None, Fixed, Capture } source = Source::None;
  int value = 0;  // the integer, or the capture index
};

struct MappingRule {
  std::string pattern;
  std::shared_ptr<const re2::RE2> regex;  // compiled once, shared by copies of the rules
  int captures = 0;                       // capture groups in the pattern
  OpKind kind = OpKind::OTHER;
  int kindCapture = 0;  // > 0: the kind is the text of this capture group ("kind": "$N")
  RuleField stage, microbatch, chunk, step;
};

class MappingRules {
 public:
  // Parses the JSON text; errors name `label` (the file) and the rule index.
  static Result<MappingRules> parse(std::string_view json, const std::string& label);
  static Result<MappingRules> load(const std::string& path);

  bool empty() const { return rules_.empty(); }
  std::size_t size() const { return rules_.size(); }
  // The first rule that matches, applied; nullopt when none does (or a capture is not a number,
  // or a captured kind is not a kind).
  std::optional<RecognizedOp> apply(std::string_view label) const;

 private:
  std::vector<MappingRule> rules_;
};

}  // namespace ps::trace::import
