#include "runtime/cuda/CommOrder.h"

#include <string>

#include "runtime/exec/ActionMessages.h"

namespace ps::runtime {
namespace {

std::string describe(const Plan& plan, int rank, std::size_t pc) {
  return "rank " + std::to_string(rank) + " at " + actionLabel(plan.programs[rank][pc]) +
         " (step " + std::to_string(plan.programs[rank][pc].step) + ")";
}

}  // namespace

int CommOrder::indexOf(int from, int to, const MessageKey& key) const {
  const auto it = position.find({{from, to}, key});
  return it == position.end() ? -1 : it->second;
}

Result<CommOrder> planCommOrder(const Plan& plan) {
  CommOrder order;
  for (int rank = 0; rank < plan.numRanks; ++rank)
    for (const Action& a : plan.programs[rank]) {
      const ActionMessages m = actionMessages(plan, a);
      if (!m.send || m.send->peer == rank) continue;
      const std::pair<int, int> channel{rank, m.send->peer};
      auto& list = order.channels[channel];
      if (!order.position.emplace(std::make_pair(channel, m.send->key), list.size()).second)
        return Error{"rank " + std::to_string(rank) + " sends the tensor of " + actionLabel(a) +
                     " (step " + std::to_string(a.step) + ") twice"};
      list.push_back(m.send->key);
    }
  return order;
}

Status checkCommOrder(const Plan& plan, const CommOrder& order) {
  const int ranks = plan.numRanks;
  std::vector<std::size_t> pc(ranks, 0);
  std::map<std::pair<int, int>, int> issued;  // channel → sends the sender has issued
  std::map<std::pair<int, int>, int> posted;  // channel → receives the receiver has posted
  std::map<std::pair<int, int>, std::vector<bool>> consumed;
  for (const auto& [channel, list] : order.channels)
    consumed[channel].assign(list.size(), false);

  for (bool progress = true; progress;) {
    progress = false;
    for (int r = 0; r < ranks; ++r) {
      while (pc[r] < plan.programs[r].size()) {
        const Action& a = plan.programs[r][pc[r]];
        const ActionMessages m = actionMessages(plan, a);
        if (m.receive && m.receive->peer != r) {
          const std::pair<int, int> channel{m.receive->peer, r};
          const int k = order.indexOf(channel.first, r, m.receive->key);
          if (k < 0)
            return Error{describe(plan, r, pc[r]) + " receives from rank " +
                         std::to_string(channel.first) + " a tensor that rank never sends"};
          int& p = posted[channel];
          p = std::max(p, k + 1);  // post every receive up to k, in channel order
          // Message k arrives once the sender issued it; its receive (and every earlier one of
          // the channel, which the sends before it wait for) is posted.
          if (issued[channel] <= k || p <= k) break;
          if (consumed[channel][k])
            return Error{describe(plan, r, pc[r]) + " receives message " + std::to_string(k) +
                         " of rank " + std::to_string(channel.first) + " twice"};
          consumed[channel][k] = true;
        }
        if (m.send && m.send->peer != r) ++issued[{r, m.send->peer}];
        ++pc[r];
        progress = true;
      }
    }
  }
  std::string stuck;
  for (int r = 0; r < ranks; ++r)
    if (pc[r] < plan.programs[r].size())
      stuck += (stuck.empty() ? "" : "; ") + describe(plan, r, pc[r]);
  if (!stuck.empty()) return Error{"NCCL channel order deadlocks: " + stuck};
  for (const auto& [channel, flags] : consumed)
    for (std::size_t k = 0; k < flags.size(); ++k)
      if (!flags[k])
        return Error{"rank " + std::to_string(channel.first) + " sends message " +
                     std::to_string(k) + " to rank " + std::to_string(channel.second) +
                     " that is never received"};
  return {};
}

}  // namespace ps::runtime
