#include "trace/import/OrderedMicrobatches.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace ps::trace::import {

bool numberedByOrder(const RecognizedOp& op, bool backendCall) {
  if (backendCall || op.microbatch >= 0 || op.stage >= 0 || op.chunk >= 0) return false;
  switch (op.kind) {
    case OpKind::F:
    case OpKind::B:
    case OpKind::I:
    case OpKind::W:
    case OpKind::R:
    case OpKind::SEND_F:
    case OpKind::RECV_F:
    case OpKind::SEND_B:
    case OpKind::RECV_B:
      return true;
    default:
      return false;
  }
}

void numberByOrder(std::vector<OpRecord>& ops, const std::vector<std::size_t>& unindexed) {
  std::vector<std::size_t> order = unindexed;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ops[a].start_ns < ops[b].start_ns; });
  std::map<std::tuple<int, OpKind, int>, int> next;  // (step, kind, stage) -> next number
  for (const std::size_t i : order) {
    OpRecord& op = ops[i];
    op.microbatch = next[{op.step, op.kind, op.stage.value_or(-1)}]++;
  }
}

}  // namespace ps::trace::import
