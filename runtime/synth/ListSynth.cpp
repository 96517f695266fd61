#include "runtime/synth/ListSynth.h"

#include <algorithm>
#include <limits>

namespace ps::runtime::synth {
namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

void reset(const SynthProblem& p, ListWorkspace& w, ListPass& out) {
  const auto n = p.size();
  const auto ranks = static_cast<std::size_t>(p.numRanks());
  w.waiting.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    w.waiting[i] = p.depBegin[i + 1] - p.depBegin[i];
  w.readyAt.assign(n, 0);
  w.channelFree.assign(static_cast<std::size_t>(p.channels), 0);
  w.candidates.resize(ranks);
  for (auto& c : w.candidates)
    c.clear();
  w.busyUntil.assign(ranks, 0);
  w.memory.assign(p.baseBytes.begin(), p.baseBytes.end());
  while (!w.running.empty())
    w.running.pop();
  out.order.resize(ranks);
  for (auto& o : out.order)
    o.clear();
  out.start.assign(n, -1);
  out.peakBytes.assign(p.baseBytes.begin(), p.baseBytes.end());
  out.makespan = 0;
  out.endSum = 0;
  out.complete = false;
  for (std::size_t i = 0; i < n; ++i)
    if (w.waiting[i] == 0) w.candidates[p.ops[i].rank].push_back(static_cast<std::int32_t>(i));
}

// The end of `op` at `end`: its memory back, its transfers sent, its consumers readied.
void finish(const SynthProblem& p, ListWorkspace& w, std::int32_t op, std::int64_t end) {
  const SynthOp& o = p.ops[op];
  w.memory[o.rank] -= o.freeBytes;
  for (std::int32_t k = p.succBegin[op]; k < p.succBegin[op + 1]; ++k) {
    const auto depIndex = p.succs[k];
    const SynthDep& d = p.deps[depIndex];
    std::int64_t sent = end;
    if (d.channel >= 0) {
      sent = std::max(end, w.channelFree[d.channel]);
      w.channelFree[d.channel] = sent + d.occupyNs;
    }
    const std::int32_t consumer = p.consumerOf[depIndex];
    w.readyAt[consumer] = std::max(w.readyAt[consumer], sent + d.occupyNs + d.latencyNs);
    if (--w.waiting[consumer] == 0) w.candidates[p.ops[consumer].rank].push_back(consumer);
  }
}

// The rank's best op that can start at `now`, or -1; `nextReady` gets the earliest later time
// one of its waiting candidates becomes ready.
std::int32_t pick(const SynthProblem& p, ListWorkspace& w, std::span<const std::int64_t> key,
                  int rank, std::int64_t now, std::int64_t& nextReady) {
  std::int32_t best = -1;
  for (std::int32_t c : w.candidates[rank]) {
    if (w.readyAt[c] > now) {
      nextReady = std::min(nextReady, w.readyAt[c]);
      continue;
    }
    const SynthOp& o = p.ops[c];
    if (o.allocBytes > 0 && w.memory[rank] + o.allocBytes > p.capBytes[rank]) continue;
    if (best < 0 || key[c] < key[best] || (key[c] == key[best] && c < best)) best = c;
  }
  return best;
}

void startOp(const SynthProblem& p, ListWorkspace& w, ListPass& out, int r, std::int32_t op,
             std::int64_t now) {
  const SynthOp& o = p.ops[op];
  const std::int64_t end = now + o.durationNs;
  w.memory[r] += o.allocBytes;
  out.peakBytes[r] = std::max(out.peakBytes[r], w.memory[r]);
  out.order[r].push_back(op);
  out.start[op] = now;
  w.busyUntil[r] = end;
  w.running.emplace(end, op);
  out.makespan = std::max(out.makespan, end);
}

constexpr std::int32_t kFail = -2;

// The event loop both passes share: at each instant every free rank starts the op `choose`
// names (-1: none now; kFail: the pass fails), then time moves to the next end or arrival
// (`choose` lowers `next` to an arrival it waits for). Incomplete when nothing can move.
template <class Choose>
void runPass(const SynthProblem& p, ListWorkspace& w, ListPass& out, const Choose& choose) {
  std::size_t started = 0;
  std::int64_t now = 0;
  while (started < p.size()) {
    std::int64_t next = kNever;
    for (int r = 0; r < p.numRanks(); ++r) {
      if (w.busyUntil[r] > now) continue;
      const std::int32_t op = choose(r, now, next);
      if (op == kFail) return;
      if (op < 0) continue;
      startOp(p, w, out, r, op, now);
      ++started;
    }
    if (!w.running.empty()) next = std::min(next, w.running.top().first);
    if (next == kNever) return;  // nothing runs and nothing can start
    now = std::max(now, next);
    while (!w.running.empty() && w.running.top().first <= now) {
      const auto [end, op] = w.running.top();
      w.running.pop();
      finish(p, w, op, end);
    }
  }
  for (const auto& ops : out.order)
    if (!ops.empty()) out.endSum += out.start[ops.back()] + p.ops[ops.back()].durationNs;
  out.complete = true;
}

}  // namespace

void listSchedule(const SynthProblem& p, std::span<const std::int64_t> key, ListWorkspace& w,
                  ListPass& out) {
  reset(p, w, out);
  runPass(p, w, out, [&](int r, std::int64_t now, std::int64_t& next) {
    const std::int32_t op = pick(p, w, key, r, now, next);
    if (op >= 0) {
      auto& cands = w.candidates[r];
      cands.erase(std::find(cands.begin(), cands.end(), op));
    }
    return op;
  });
}

void replayOrder(const SynthProblem& p, const std::vector<std::vector<std::int32_t>>& order,
                 ListWorkspace& w, ListPass& out) {
  reset(p, w, out);
  w.head.assign(static_cast<std::size_t>(p.numRanks()), 0);
  runPass(p, w, out, [&](int r, std::int64_t now, std::int64_t& next) -> std::int32_t {
    if (w.head[r] >= order[r].size()) return -1;
    const std::int32_t op = order[r][w.head[r]];
    if (w.waiting[op] > 0) return -1;  // an input has not finished: a completion wakes it
    if (w.readyAt[op] > now) {
      next = std::min(next, w.readyAt[op]);
      return -1;
    }
    if (w.memory[r] + p.ops[op].allocBytes > p.capBytes[r]) return kFail;  // over the cap
    ++w.head[r];
    return op;
  });
}

}  // namespace ps::runtime::synth
