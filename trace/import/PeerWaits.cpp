#include "trace/import/PeerWaits.h"

#include <algorithm>
#include <string>

#include "trace/PeerWaitName.h"
#include "trace/import/ClockAlignment.h"

namespace ps::trace::import {

std::int64_t splitPeerWaits(std::vector<RankOps>& ranks, std::int64_t minWaitNs) {
  struct Split {
    int rank;
    std::size_t op;
    std::int64_t transferStart;
    int peer;
  };
  std::vector<Split> splits;
  for (const auto& p : matchP2pPairs(ranks)) {
    const OpRecord& send = ranks[p.sendRank].ops[p.sendOp];
    const OpRecord& recv = ranks[p.recvRank].ops[p.recvOp];
    const std::int64_t transferStart = std::max(send.start_ns, recv.start_ns);
    if (transferStart - send.start_ns >= minWaitNs && transferStart < send.end_ns)
      splits.push_back({p.sendRank, p.sendOp, transferStart, p.recvRank});
    if (transferStart - recv.start_ns >= minWaitNs && transferStart < recv.end_ns)
      splits.push_back({p.recvRank, p.recvOp, transferStart, p.sendRank});
  }
  for (const auto& s : splits) {
    auto& ops = ranks[s.rank].ops;
    OpRecord wait = ops[s.op];
    wait.end_ns = s.transferStart;
    wait.bytes.reset();
    wait.name = wait.name.value_or(std::string(opKindName(wait.kind))) +
                std::string(kPeerWaitMark) + std::to_string(s.peer);
    ops[s.op].start_ns = s.transferStart;
    ops.push_back(std::move(wait));
  }
  return static_cast<std::int64_t>(splits.size());
}

}  // namespace ps::trace::import
