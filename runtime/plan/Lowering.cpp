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
  // The receives before a consumer come straight from its deps; the sends after a producer from
  // its successors, gathered once as CSR (consumers in id order, as the deps list them): no
  // per-node containers and no copies of the communication actions.
  std::vector<std::int32_t> succBegin(n + 1, 0), succ(graph.deps.size());
  for (auto d : graph.deps)
    ++succBegin[static_cast<std::size_t>(d) + 1];
  for (std::size_t i = 0; i < n; ++i)
    succBegin[i + 1] += succBegin[i];
  for (std::size_t i = 0; i < n; ++i)
    for (auto d : graph.depsOf(i))
      succ[static_cast<std::size_t>(succBegin[d]++)] = static_cast<std::int32_t>(i);
  for (std::size_t i = n; i > 0; --i)  // the fill left each begin at the next one's
    succBegin[i] = succBegin[i - 1];
  succBegin[0] = 0;

  // The communication an edge producer → consumer needs, if it crosses ranks and carries data.
  auto cross = [&](std::int32_t p, std::int32_t c, OpKind& send, OpKind& recv) {
    if (graph.isVirtual(static_cast<std::size_t>(p)) ||
        graph.isVirtual(static_cast<std::size_t>(c)) || graph.rank[p] == graph.rank[c])
      return false;
    return edgeKinds(graph.actions[p].kind, graph.actions[c].kind, send, recv);
  };
  auto receivesBefore = [&](std::vector<Action>& out, std::int32_t c) {
    const Action& cons = graph.actions[c];
    for (const std::int32_t p : graph.depsOf(static_cast<std::size_t>(c))) {
      OpKind send{}, recv{};
      if (cross(p, c, send, recv))
        out.push_back(Action{recv, cons.stage, cons.microbatch, cons.step, graph.rank[p]});
    }
  };
  auto sendsAfter = [&](std::vector<Action>& out, std::int32_t p) {
    const Action& prod = graph.actions[p];
    for (std::int32_t k = succBegin[p]; k < succBegin[p + 1]; ++k) {
      const std::int32_t c = succ[static_cast<std::size_t>(k)];
      OpKind send{}, recv{};
      if (cross(p, c, send, recv))
        out.push_back(Action{send, prod.stage, prod.microbatch, prod.step, graph.rank[c]});
    }
  };

  std::vector<std::vector<Action>> programs(plan.numRanks);
  for (int r = 0; r < plan.numRanks && r < graph.numRanks(); ++r) {
    const std::int32_t begin = graph.rankBegin[r], end = graph.rankBegin[r + 1];
    auto& out = programs[r];
    // A compute op and at most a send and a receive each, typically: capacity never touched
    // costs nothing, and the vector grows when a stage DAG needs more.
    out.reserve(3 * static_cast<std::size_t>(end - begin));
    // Walk overlap units: [first, last] chained by overlapNext.
    for (std::int32_t first = begin; first < end;) {
      std::int32_t last = first;
      while (last + 1 < end && graph.actions[last].overlapNext)
        ++last;
      for (std::int32_t i = first; i <= last; ++i)
        receivesBefore(out, i);
      for (std::int32_t i = first; i <= last; ++i)
        out.push_back(graph.actions[i]);
      for (std::int32_t i = first; i <= last; ++i)
        sendsAfter(out, i);
      first = last + 1;
    }
  }
  return programs;
}

}  // namespace ps::runtime
