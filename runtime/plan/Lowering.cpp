#include "runtime/plan/Lowering.h"

#include <cstdint>

namespace ps::runtime {
namespace {

bool isBackwardData(OpKind k) {
  return k == OpKind::B || k == OpKind::I;
}

// The communication kinds an edge producer → consumer needs, or false if it carries no data.
bool edgeKinds(OpKind producer, OpKind consumer, OpKind& send, OpKind& recv) {
  if (producer == OpKind::F && consumer == OpKind::F) {
    send = OpKind::SEND_F;
    recv = OpKind::RECV_F;
    return true;
  }
  if (isBackwardData(producer) && isBackwardData(consumer)) {
    send = OpKind::SEND_B;
    recv = OpKind::RECV_B;
    return true;
  }
  return false;
}

}  // namespace

std::vector<std::vector<Action>> lowerCommunication(const Plan& plan, const OpGraph& graph) {
  const std::size_t n = graph.size();
  // Per node: the sends to emit after it and the receives to emit before it.
  std::vector<std::vector<Action>> after(n), before(n);
  for (std::size_t c = 0; c < n; ++c) {
    if (graph.isVirtual(c)) continue;
    for (const std::int32_t p : graph.depsOf(c)) {
      if (graph.isVirtual(p) || graph.rank[p] == graph.rank[c]) continue;
      const Action& prod = graph.actions[p];
      const Action& cons = graph.actions[c];
      OpKind send{}, recv{};
      if (!edgeKinds(prod.kind, cons.kind, send, recv)) continue;
      after[p].push_back(Action{send, prod.stage, prod.microbatch, prod.step, graph.rank[c]});
      before[c].push_back(Action{recv, cons.stage, cons.microbatch, cons.step, graph.rank[p]});
    }
  }

  std::vector<std::vector<Action>> programs(plan.numRanks);
  for (int r = 0; r < plan.numRanks && r < static_cast<int>(graph.rankNodes.size()); ++r) {
    const auto& nodes = graph.rankNodes[r];
    auto& out = programs[r];
    out.reserve(nodes.size() * 2);
    // Walk overlap units: [first, last] chained by overlapNext.
    for (std::size_t first = 0; first < nodes.size();) {
      std::size_t last = first;
      while (last + 1 < nodes.size() && graph.actions[nodes[last]].overlapNext)
        ++last;
      for (std::size_t i = first; i <= last; ++i)
        out.insert(out.end(), before[nodes[i]].begin(), before[nodes[i]].end());
      for (std::size_t i = first; i <= last; ++i)
        out.push_back(graph.actions[nodes[i]]);
      for (std::size_t i = first; i <= last; ++i)
        out.insert(out.end(), after[nodes[i]].begin(), after[nodes[i]].end());
      first = last + 1;
    }
  }
  return programs;
}

}  // namespace ps::runtime
