#pragma once
// Small helpers the generators share (internal to runtime/schedules).

#include <string>
#include <utility>
#include <vector>

#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime::sched {

inline Action makeAction(OpKind kind, int stage, int microbatch, int step = 0) {
  Action a;
  a.kind = kind;
  a.stage = stage;
  a.microbatch = microbatch;
  a.step = step;
  return a;
}

inline Action optAction(int step) {
  Action a;
  a.kind = OpKind::OPT;
  a.step = step;
  return a;
}

// "NAME: needs WHAT (m=6, p=4)": the message form every generator uses for a broken constraint.
inline Error constraintError(const std::string& name, const std::string& what,
                             const std::vector<std::pair<std::string, int>>& values) {
  std::string msg = name + ": needs " + what + " (";
  for (std::size_t i = 0; i < values.size(); ++i)
    msg += (i ? ", " : "") + values[i].first + "=" + std::to_string(values[i].second);
  return Error{msg + ")"};
}

// One rank's 1F1B sequence over `count` items (micro-batches, or virtual micro-batches for the
// interleaved schedule): `warmup` forwards, then forward/backward pairs, then the remaining
// backwards. Each entry is (item index, isForward).
inline std::vector<std::pair<int, bool>> oneFOneBSequence(int warmup, int count) {
  if (warmup > count) warmup = count;
  std::vector<std::pair<int, bool>> seq;
  seq.reserve(2 * static_cast<std::size_t>(count));
  for (int i = 0; i < warmup; ++i)
    seq.emplace_back(i, true);
  for (int i = 0; i + warmup < count; ++i) {
    seq.emplace_back(i + warmup, true);
    seq.emplace_back(i, false);
  }
  for (int i = count - warmup; i < count; ++i)
    seq.emplace_back(i, false);
  return seq;
}

}  // namespace ps::runtime::sched
