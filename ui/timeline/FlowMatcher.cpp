#include "ui/timeline/FlowMatcher.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace ps::ui {

std::vector<Flow> matchFlows(const trace::RunTrace& run) {
  using Key = std::tuple<int, int, bool, int, int>;  // from, to, forward, micro-batch, step
  std::map<Key, std::vector<std::size_t>> receives;  // in start order
  const int ranks = static_cast<int>(run.ranks.size());
  for (int q = 0; q < ranks; ++q) {
    const auto& recv = run.ranks[q].lane(trace::Lane::Recv);
    for (std::size_t i = 0; i < recv.size(); ++i)
      if (recv.peer[i] >= 0 && trace::isRecv(recv.kind[i]))
        receives[{recv.peer[i], q, recv.kind[i] == trace::OpKind::RECV_F, recv.microbatch[i],
                  recv.step[i]}]
            .push_back(i);
  }
  std::map<Key, std::size_t> used;
  std::vector<Flow> flows;
  for (int r = 0; r < ranks; ++r) {
    const auto& send = run.ranks[r].lane(trace::Lane::Send);
    for (std::size_t i = 0; i < send.size(); ++i) {
      const int q = send.peer[i];
      if (q < 0 || q >= ranks || !trace::isSend(send.kind[i])) continue;
      const Key key{r, q, send.kind[i] == trace::OpKind::SEND_F, send.microbatch[i], send.step[i]};
      const auto it = receives.find(key);
      if (it == receives.end()) continue;
      std::size_t& next = used[key];
      if (next >= it->second.size()) continue;
      const std::size_t k = it->second[next++];
      flows.push_back({r, i, q, k, send.start[i], run.ranks[q].lane(trace::Lane::Recv).end[k]});
    }
  }
  std::sort(flows.begin(), flows.end(),
            [](const Flow& a, const Flow& b) { return a.start < b.start; });
  return flows;
}

}  // namespace ps::ui
