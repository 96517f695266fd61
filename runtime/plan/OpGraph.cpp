#include "runtime/plan/OpGraph.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "runtime/plan/OpGraphChecks.h"

namespace ps::runtime {
namespace {

using graph::ActionIndex;

bool isGradOp(OpKind k) {
  return k == OpKind::B || k == OpKind::W;
}

// Lists of node ids keyed by a small dense key (a step, or a rank and step), CSR: filled in
// two passes over the nodes, no per-key vectors.
struct KeyedLists {
  std::vector<std::int32_t> begin, items;
  std::span<const std::int32_t> of(std::size_t key) const {
    return {items.data() + begin[key], items.data() + begin[key + 1]};
  }
};

template <typename KeyOf>
KeyedLists gatherByKey(std::size_t keys, std::size_t nodes, KeyOf&& keyOf) {
  KeyedLists out;
  out.begin.assign(keys + 1, 0);
  for (std::size_t j = 0; j < nodes; ++j)
    if (const auto key = keyOf(j); key >= 0) ++out.begin[static_cast<std::size_t>(key) + 1];
  for (std::size_t k = 0; k < keys; ++k)
    out.begin[k + 1] += out.begin[k];
  out.items.resize(static_cast<std::size_t>(out.begin[keys]));
  std::vector<std::int32_t> at(out.begin.begin(), out.begin.end() - 1);
  for (std::size_t j = 0; j < nodes; ++j)
    if (const auto key = keyOf(j); key >= 0)
      out.items[static_cast<std::size_t>(at[static_cast<std::size_t>(key)]++)] =
          static_cast<std::int32_t>(j);
  return out;
}

// The plan's extra edges as (after, before) pairs sorted by `after`, resolved to node ids.
Result<std::vector<std::pair<std::int32_t, std::int32_t>>> resolveExtraEdges(
    const Plan& p, const ActionIndex& index) {
  std::vector<std::pair<std::int32_t, std::int32_t>> edges;
  edges.reserve(p.extraEdges.size());
  const auto find = [&](const ActionRef& r) -> std::int32_t {
    if (r.stage < 0 || r.stage >= p.numStages || r.microbatch < 0 ||
        r.microbatch >= p.numMicrobatches() || r.step < 0 || r.step >= p.steps)
      return -1;
    return index.find(r.kind, r.stage, r.microbatch, r.step);
  };
  for (const auto& e : p.extraEdges) {
    const auto before = find(e.before), after = find(e.after);
    if (before < 0 || after < 0)
      return Error{"extra dependency " + actionLabel(e.before) + " -> " + actionLabel(e.after) +
                   " names an op the plan does not have"};
    edges.emplace_back(after, before);
  }
  std::stable_sort(edges.begin(), edges.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return edges;
}

// The programs copied whole into g (a rank's nodes are one contiguous range), each action checked
// and indexed: `index` finds every op, `optOf` each (rank, step)'s OPT.
Status indexPrograms(const Plan& p, OpGraph& g, ActionIndex& index,
                     std::vector<std::int32_t>& optOf) {
  const std::size_t total = p.actionCount();
  g.actions.reserve(total + static_cast<std::size_t>(p.steps));
  g.rank.reserve(total + static_cast<std::size_t>(p.steps));
  g.rankBegin.assign(static_cast<std::size_t>(p.numRanks) + 1, 0);
  for (int r = 0; r < p.numRanks; ++r) {
    g.rankBegin[r] = static_cast<std::int32_t>(g.actions.size());
    g.actions.insert(g.actions.end(), p.programs[r].begin(), p.programs[r].end());
    g.rank.insert(g.rank.end(), p.programs[r].size(), r);
  }
  g.rankBegin[p.numRanks] = static_cast<std::int32_t>(g.actions.size());
  optOf.assign(static_cast<std::size_t>(p.numRanks) * p.steps, -1);
  for (int r = 0; r < p.numRanks; ++r)
    for (std::int32_t id = g.rankBegin[r]; id < g.rankBegin[r + 1]; ++id) {
      const Action& a = g.actions[static_cast<std::size_t>(id)];
      if (!graph::actionFits(p, r, a)) return graph::actionError(p, r, a);
      if (a.kind == OpKind::OPT) {
        auto& slot = optOf[static_cast<std::size_t>(r) * p.steps + a.step];
        if (slot >= 0)
          return Error{"rank " + std::to_string(r) + ": duplicate OPT" +
                       graph::stepSuffix(p, a.step)};
        slot = id;
      } else if (a.kind != OpKind::FILL || a.stage >= 0) {
        // A FILL that feeds a stage is found by the step it feeds.
        const int step = a.kind == OpKind::FILL ? a.step + a.ahead : a.step;
        auto& slot = index.at(a.kind, a.stage, a.microbatch, step);
        if (slot >= 0)
          return Error{"duplicate op " + actionLabel(a) + graph::stepSuffix(p, a.step) +
                       " on rank " + std::to_string(g.rank[slot]) + " and rank " +
                       std::to_string(r)};
        slot = id;
      }
    }
  g.computeCount = g.actions.size();
  return graph::checkEveryOpPresent(p, index);
}

// What a compute node's dependencies are looked up in.
struct DepContext {
  const Plan& p;
  const OpGraph& g;
  const ActionIndex& index;
  std::vector<std::vector<int>> predsOf, succsOf;  // per stage
  bool barrier = false;
  KeyedLists rankStepGrads;  // per (rank, step) without a barrier
  // Wave-synchronous plans: per rank, the other replicas' ranks holding a stage it holds.
  std::vector<std::vector<int>> twinRanks = {};
};

std::vector<std::vector<int>> twinRanksOf(const Plan& p) {
  std::vector<std::vector<int>> twins(static_cast<std::size_t>(p.numRanks));
  for (int k = 0; k < p.numReplicas(); ++k)
    for (std::size_t s = 0; s < p.placement[k].size(); ++s)
      for (int other = 0; other < p.numReplicas(); ++other) {
        const int mine = p.placement[k][s].rank, theirs = p.placement[other][s].rank;
        auto& list = twins[static_cast<std::size_t>(mine)];
        if (other != k && theirs != mine &&
            std::find(list.begin(), list.end(), theirs) == list.end())
          list.push_back(theirs);
      }
  return twins;
}

// Compute node `node`'s data and order dependencies (the plan's extra edges aside).
void appendComputeDeps(const DepContext& c, std::size_t node, std::vector<std::int32_t>& deps) {
  const Action& a = c.g.actions[node];
  const int s = a.stage, m = a.microbatch, k = a.step;
  switch (a.kind) {
    case OpKind::F:
      for (int pred : c.predsOf[s])
        deps.push_back(c.index.find(OpKind::F, pred, m, k));
      // DiffusionPipe: the frozen part's output for this micro-batch, where a FILL makes it.
      if (const auto fill = c.index.find(OpKind::FILL, s, m, k); fill >= 0) deps.push_back(fill);
      if (c.p.microbatches[m].sliceOf >= 0)
        deps.push_back(c.index.find(OpKind::F, s, c.p.microbatches[m].sliceOf, k));
      break;
    case OpKind::R:
      deps.push_back(c.index.find(OpKind::F, s, m, k));
      break;
    case OpKind::B:
    case OpKind::I: {
      deps.push_back(c.index.find(OpKind::F, s, m, k));
      if (const auto r = c.index.find(OpKind::R, s, m, k); r >= 0) deps.push_back(r);
      for (int succ : c.succsOf[s]) {
        const auto b = c.index.find(OpKind::B, succ, m, k);
        deps.push_back(b >= 0 ? b : c.index.find(OpKind::I, succ, m, k));
      }
      break;
    }
    case OpKind::W:
      deps.push_back(c.index.find(OpKind::I, s, m, k));
      break;
    case OpKind::OPT:
      if (c.barrier) {
        deps.push_back(static_cast<std::int32_t>(c.g.computeCount) + k);  // the step's barrier
      } else {
        const auto grads =
            c.rankStepGrads.of(static_cast<std::size_t>(c.g.rank[node]) * c.p.steps + k);
        deps.insert(deps.end(), grads.begin(), grads.end());
        if (c.p.waveStaleness >= 0 && k - c.p.waveStaleness >= 0)
          for (int twin : c.twinRanks[static_cast<std::size_t>(c.g.rank[node])]) {
            const auto theirs = c.rankStepGrads.of(static_cast<std::size_t>(twin) * c.p.steps +
                                                   (k - c.p.waveStaleness));
            deps.insert(deps.end(), theirs.begin(), theirs.end());
          }
      }
      break;
    default:
      break;  // FILL has no dependencies
  }
}

}  // namespace

Result<OpGraph> buildOpGraph(const Plan& p) {
  PS_TRY(graph::checkPlanShape(p));
  OpGraph g;
  ActionIndex index(p);
  std::vector<std::int32_t> optOf;
  PS_TRY(indexPrograms(p, g, index, optOf));

  bool anyOpt = false;
  for (auto id : optOf)
    anyOpt |= id >= 0;
  // Wave-synchronous replicas (HetPipe) have no barrier: each OPT waits for its own rank's
  // gradients and for its twins' of the step whose updates it adds (twinOptDeps).
  const bool wave = p.waveStaleness >= 0;
  DepContext c{p, g, index, {}, {}, anyOpt && p.optimizerSync == OptimizerSync::Barrier && !wave,
               {}};
  const bool perRank = anyOpt && (p.optimizerSync == OptimizerSync::None || wave);
  // Barrier nodes, one per step, when the optimizer waits for every rank.
  if (c.barrier)
    for (int k = 0; k < p.steps; ++k) {
      g.actions.push_back(Action{OpKind::OPT, -1, -1, k});
      g.rank.push_back(-1);
    }

  // OPT rules: the grad ops of each step (barrier) or of each (rank, step).
  const std::size_t nCompute = g.computeCount;
  KeyedLists stepGrads;
  if (c.barrier)
    stepGrads = gatherByKey(static_cast<std::size_t>(p.steps), nCompute, [&](std::size_t j) {
      return isGradOp(g.actions[j].kind) ? g.actions[j].step : -1;
    });
  if (perRank)
    c.rankStepGrads =
        gatherByKey(static_cast<std::size_t>(p.numRanks) * p.steps, nCompute, [&](std::size_t j) {
          return isGradOp(g.actions[j].kind) ? g.rank[j] * p.steps + g.actions[j].step : -1;
        });
  if (wave) c.twinRanks = twinRanksOf(p);
  auto extra = resolveExtraEdges(p, index);
  if (!extra) return std::move(extra).takeError();
  std::size_t nextExtra = 0;
  c.predsOf.resize(p.numStages);
  c.succsOf.resize(p.numStages);
  for (int s = 0; s < p.numStages; ++s) {
    c.predsOf[s] = p.predecessors(s);
    c.succsOf[s] = p.successors(s);
  }

  // One pass: node i's deps are appended in node order, so depBegin is the running size.
  const std::size_t n = g.actions.size();
  g.depBegin.resize(n + 1);
  g.deps.reserve(2 * nCompute +
                 (c.barrier ? stepGrads.items.size() : c.rankStepGrads.items.size()) +
                 extra->size());
  auto& deps = g.deps;
  for (std::size_t node = 0; node < nCompute; ++node) {
    g.depBegin[node] = static_cast<std::int32_t>(deps.size());
    appendComputeDeps(c, node, deps);
    for (;
         nextExtra < extra->size() && (*extra)[nextExtra].first == static_cast<std::int32_t>(node);
         ++nextExtra)
      deps.push_back((*extra)[nextExtra].second);
  }
  for (std::size_t node = nCompute; node < n; ++node) {
    g.depBegin[node] = static_cast<std::int32_t>(deps.size());
    const auto grads = stepGrads.of(static_cast<std::size_t>(g.actions[node].step));
    deps.insert(deps.end(), grads.begin(), grads.end());
  }
  if (deps.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    return Error{"plan: too many dependencies (" + std::to_string(deps.size()) + ")"};
  g.depBegin[n] = static_cast<std::int32_t>(deps.size());
  return g;
}

}  // namespace ps::runtime
