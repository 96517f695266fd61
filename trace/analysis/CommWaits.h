#pragma once
// The all-to-alls and embedding fetches of a run (A2A ops on the collective lane: Piper's expert
// exchange after an F/B/I, NestPipe's gather before a stage-0 F) and the gradient all-reduces
// (AR, data parallelism: the optimizer step waits for its rank's) as waits the bubble attribution
// can name. An A2A recorded on a rank with an op's (step, stage, micro-batch) is that op's: the
// exchange that holds its output, or the fetch its F waits for.

#include <cstdint>
#include <functional>
#include <tuple>
#include <utility>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/OpRef.h"

namespace ps::trace {

class CommWaits {
 public:
  explicit CommWaits(const RunTrace& run);

  bool empty() const { return empty_; }
  // The latest end, at or before `limit`, of the A2As on `op`'s rank with its step, stage and
  // micro-batch; INT64_MIN when none.
  std::int64_t endBefore(const RunTrace& run, const OpRef& op, std::int64_t limit) const;
  // Splits [a, b) on `rank` into runs where its collective lane is busy with an A2A or AR or not.
  void split(int rank, std::int64_t a, std::int64_t b,
             const std::function<void(std::int64_t, std::int64_t, bool busy)>& visit) const;

 private:
  using Key = std::tuple<std::int32_t, std::int32_t, std::int32_t>;  // step, stage, micro-batch
  std::vector<std::vector<std::pair<Key, std::int64_t>>> ends_;      // per rank, sorted
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> busy_;  // per rank, merged
  bool empty_ = true;
};

}  // namespace ps::trace
