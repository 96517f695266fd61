#pragma once
// Finding ops by a short query, as the search boxes of Nsight Systems and Perfetto do.
//
// Query syntax (terms separated by spaces, all must hold):
//   word          the op's kind name or its original name contains it (case-insensitive)
//   "two words"   the same, with spaces or colons inside
//   kind:F        the kind is exactly F (case-insensitive); kind:F,B for either
//   rank:3  stage:1  mb:4 (or microbatch:4)  step:0
//                 the field equals it; ranges and lists: mb:2-5, rank:0,3,7-9
//   name:WORD     only the original name contains WORD
// A term that does not parse is an error naming it ("mb:x: not a number").

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/Result.h"
#include "trace/RunTrace.h"
#include "trace/analysis/OpRef.h"

namespace ps::trace {

// A parsed query. Empty when it has no term (then every op matches).
struct OpQuery {
  struct Range {
    std::int64_t lo, hi;  // inclusive
  };
  // One field term: the value lies in one of its ranges.
  using Alternatives = std::vector<Range>;
  enum Field { Rank, Stage, Microbatch, Step, kFieldCount };

  std::vector<std::string> words;      // lower case, kind or name
  std::vector<std::string> nameWords;  // lower case, name only
  std::uint32_t kindMask = ~0u;        // bit k: OpKind k is allowed (kind: terms)
  std::array<std::vector<Alternatives>, kFieldCount> fields;

  bool empty() const;
};

[[nodiscard]] Result<OpQuery> parseOpQuery(std::string_view text);

// Every op matching `query`, in time order across ranks (by start; ties by rank, lane, index).
// One pass over the columns; the strings are compared once per interned name, not per op.
std::vector<OpRef> findOps(const RunTrace& run, const OpQuery& query);
// The same, polling `cancel` (may be null) every 64K ops: once it is set, returns no ops (the
// search bar's background job, superseded by the next keystroke).
std::vector<OpRef> findOps(const RunTrace& run, const OpQuery& query,
                           const std::atomic<bool>* cancel);

// parseOpQuery + findOps.
[[nodiscard]] Result<std::vector<OpRef>> searchOps(const RunTrace& run, std::string_view text);

}  // namespace ps::trace
