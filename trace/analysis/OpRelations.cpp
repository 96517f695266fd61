#include "trace/analysis/OpRelations.h"

#include <algorithm>
#include <climits>
#include <initializer_list>

#include "trace/analysis/ConfigJson.h"

namespace ps::trace {
namespace {

constexpr std::int32_t kAny = INT_MIN;  // a wildcard for stage / micro-batch in lookups

bool inRange(const RunTrace& run, const OpRef& op) {
  return op.rank >= 0 && static_cast<std::size_t>(op.rank) < run.ranks.size() &&
         op.index < run.ranks[op.rank].lane(op.lane).size();
}

std::uint32_t maskOf(std::initializer_list<OpKind> kinds) {
  std::uint32_t m = 0;
  for (OpKind k : kinds)
    m |= 1u << static_cast<int>(k);
  return m;
}

// The fields that identify an op to the rules.
struct Key {
  OpKind kind;
  std::int32_t stage, mb, step;
};

Key keyOf(const RunTrace& run, const OpRef& op) {
  const OpColumns& c = run.ranks[op.rank].lane(op.lane);
  return {c.kind[op.index], c.stage[op.index], c.microbatch[op.index], c.step[op.index]};
}

class Finder {
 public:
  explicit Finder(const RunTrace& run) : run_(run) {
    const auto sync = jsonTopLevelString(run.info.config_json, "optimizer_sync");
    optimizerPerRank_ = sync && *sync == "none";
  }

  const RunTrace& run() const { return run_; }
  bool optimizerPerRank() const { return optimizerPerRank_; }

  // The ranks the stages table places `stage` on; every rank when it names none.
  std::vector<int> hostsOf(std::int32_t stage) const {
    std::vector<int> out;
    for (const auto& s : run_.stages)
      if (s.stage == stage && s.rank >= 0 && static_cast<std::size_t>(s.rank) < run_.ranks.size() &&
          std::find(out.begin(), out.end(), s.rank) == out.end())
        out.push_back(s.rank);
    if (out.empty())
      for (std::size_t r = 0; r < run_.ranks.size(); ++r)
        out.push_back(static_cast<int>(r));
    return out;
  }

  // Appends the ops of `lane` on `ranks` with a kind in `kinds` and the given fields.
  void find(const std::vector<int>& ranks, Lane lane, std::uint32_t kinds, std::int32_t stage,
            std::int32_t mb, std::int32_t step, std::vector<OpRef>& out) const {
    for (int r : ranks) {
      const OpColumns& c = run_.ranks[r].lane(lane);
      for (std::size_t i = 0; i < c.size(); ++i)
        if ((kinds >> static_cast<int>(c.kind[i]) & 1u) && c.step[i] == step &&
            (stage == kAny || c.stage[i] == stage) && (mb == kAny || c.microbatch[i] == mb))
          out.push_back({r, lane, i});
    }
  }
  void findStage(Lane lane, std::uint32_t kinds, std::int32_t stage, std::int32_t mb,
                 std::int32_t step, std::vector<OpRef>& out) const {
    find(hostsOf(stage), lane, kinds, stage, mb, step, out);
  }

 private:
  const RunTrace& run_;
  bool optimizerPerRank_ = false;
};

const std::uint32_t kBackward = maskOf({OpKind::B, OpKind::I});
const std::uint32_t kGrad = maskOf({OpKind::B, OpKind::W});

std::vector<OpRef> inputsOf(const Finder& f, const OpRef& op) {
  std::vector<OpRef> in;
  const Key k = keyOf(f.run(), op);
  const bool staged = k.stage >= 0 && k.mb >= 0;
  const std::vector<int> self{op.rank};
  switch (k.kind) {
    case OpKind::F:
      if (!staged) break;
      f.find(self, Lane::Recv, maskOf({OpKind::RECV_F}), k.stage, k.mb, k.step, in);
      if (in.empty() && k.stage > 0)
        f.findStage(Lane::Compute, maskOf({OpKind::F}), k.stage - 1, k.mb, k.step, in);
      break;
    case OpKind::R:
      if (staged) f.findStage(Lane::Compute, maskOf({OpKind::F}), k.stage, k.mb, k.step, in);
      break;
    case OpKind::B:
    case OpKind::I: {
      if (!staged) break;
      f.findStage(Lane::Compute, maskOf({OpKind::F, OpKind::R}), k.stage, k.mb, k.step, in);
      const std::size_t before = in.size();
      f.find(self, Lane::Recv, maskOf({OpKind::RECV_B}), k.stage, k.mb, k.step, in);
      if (in.size() == before) f.findStage(Lane::Compute, kBackward, k.stage + 1, k.mb, k.step, in);
      break;
    }
    case OpKind::W:
      if (staged) f.findStage(Lane::Compute, maskOf({OpKind::I}), k.stage, k.mb, k.step, in);
      break;
    case OpKind::OPT: {
      std::vector<int> ranks = self;
      if (!f.optimizerPerRank()) {
        ranks.clear();
        for (std::size_t r = 0; r < f.run().ranks.size(); ++r)
          ranks.push_back(static_cast<int>(r));
      }
      f.find(ranks, Lane::Compute, kGrad, kAny, kAny, k.step, in);
      break;
    }
    case OpKind::SEND_F:
      if (staged) f.find(self, Lane::Compute, maskOf({OpKind::F}), k.stage, k.mb, k.step, in);
      break;
    case OpKind::SEND_B:
      if (staged) f.find(self, Lane::Compute, kBackward, k.stage, k.mb, k.step, in);
      break;
    case OpKind::RECV_F:
    case OpKind::RECV_B:
      if (auto s = matchingTransfer(f.run(), op)) in.push_back(*s);
      break;
    default:
      break;
  }
  return in;
}

// Ops that the rules could make wait for `op`; outputsOf keeps those whose inputs hold it.
std::vector<OpRef> candidatesOf(const Finder& f, const OpRef& op, const Key& k) {
  std::vector<OpRef> c;
  const std::vector<int> self{op.rank};
  const bool staged = k.stage >= 0 && k.mb >= 0;
  switch (k.kind) {
    case OpKind::F:
      if (!staged) break;
      f.find(self, Lane::Send, maskOf({OpKind::SEND_F}), k.stage, k.mb, k.step, c);
      f.findStage(Lane::Compute, maskOf({OpKind::F}), k.stage + 1, k.mb, k.step, c);
      f.findStage(Lane::Compute, maskOf({OpKind::R, OpKind::B, OpKind::I}), k.stage, k.mb, k.step,
                  c);
      break;
    case OpKind::R:
      if (staged) f.findStage(Lane::Compute, kBackward, k.stage, k.mb, k.step, c);
      break;
    case OpKind::B:
    case OpKind::I:
      if (!staged) break;
      f.find(self, Lane::Send, maskOf({OpKind::SEND_B}), k.stage, k.mb, k.step, c);
      if (k.stage > 0) f.findStage(Lane::Compute, kBackward, k.stage - 1, k.mb, k.step, c);
      if (k.kind == OpKind::I)
        f.findStage(Lane::Compute, maskOf({OpKind::W}), k.stage, k.mb, k.step, c);
      break;
    case OpKind::SEND_F:
    case OpKind::SEND_B:
      if (auto r = matchingTransfer(f.run(), op)) c.push_back(*r);
      break;
    case OpKind::RECV_F:
      if (staged) f.find(self, Lane::Compute, maskOf({OpKind::F}), k.stage, k.mb, k.step, c);
      break;
    case OpKind::RECV_B:
      if (staged) f.find(self, Lane::Compute, kBackward, k.stage, k.mb, k.step, c);
      break;
    default:
      break;
  }
  return c;
}

std::vector<OpRef> outputsOf(const Finder& f, const OpRef& op) {
  const Key k = keyOf(f.run(), op);
  std::vector<OpRef> out;
  for (const OpRef& c : candidatesOf(f, op, k)) {
    const auto in = inputsOf(f, c);
    if (std::find(in.begin(), in.end(), op) != in.end()) out.push_back(c);
  }
  // The optimizer step waits for every gradient op of its step (of its rank without a barrier):
  // the rule directly, as the inputs of an OPT are a scan of every rank.
  if (k.kind == OpKind::B || k.kind == OpKind::W) {
    std::vector<int> ranks{op.rank};
    if (!f.optimizerPerRank()) {
      ranks.clear();
      for (std::size_t r = 0; r < f.run().ranks.size(); ++r)
        ranks.push_back(static_cast<int>(r));
    }
    f.find(ranks, Lane::Compute, maskOf({OpKind::OPT}), kAny, kAny, k.step, out);
  }
  return out;
}

OpKind counterpart(OpKind k) {
  switch (k) {
    case OpKind::SEND_F:
      return OpKind::RECV_F;
    case OpKind::RECV_F:
      return OpKind::SEND_F;
    case OpKind::SEND_B:
      return OpKind::RECV_B;
    default:
      return OpKind::SEND_B;
  }
}

}  // namespace

std::vector<OpRef> opInputs(const RunTrace& run, const OpRef& op) {
  if (!inRange(run, op)) return {};
  return inputsOf(Finder(run), op);
}

OpRelations opRelations(const RunTrace& run, const OpRef& op) {
  if (!inRange(run, op)) return {};
  const Finder f(run);
  return {inputsOf(f, op), outputsOf(f, op)};
}

std::optional<OpRef> matchingTransfer(const RunTrace& run, const OpRef& op) {
  if (!inRange(run, op)) return std::nullopt;
  const OpColumns& own = run.ranks[op.rank].lane(op.lane);
  const std::size_t i = op.index;
  const OpKind kind = own.kind[i];
  if (!isSend(kind) && !isRecv(kind)) return std::nullopt;
  const std::int32_t peer = own.peer[i];
  if (peer < 0 || static_cast<std::size_t>(peer) >= run.ranks.size()) return std::nullopt;
  // Which of the equal-looking transfers on this side it is: the k-th pairs with the k-th.
  std::size_t ordinal = 0;
  for (std::size_t j = 0; j < i; ++j)
    ordinal += own.kind[j] == kind && own.peer[j] == peer && own.stage[j] == own.stage[i] &&
               own.microbatch[j] == own.microbatch[i] && own.step[j] == own.step[i];
  // Activations flow to the next stage, gradients to the previous one.
  const bool towardNext = kind == OpKind::SEND_F || kind == OpKind::RECV_B;
  const std::int32_t stage = own.stage[i];
  const std::int32_t wantStage = stage < 0 ? kAny : (towardNext ? stage + 1 : stage - 1);
  const OpKind other = counterpart(kind);
  const Lane lane = laneOf(other);
  const OpColumns& c = run.ranks[peer].lane(lane);
  // Strictly on the adjacent stage first; importers that label both ends with one stage match on
  // the rest.
  for (const std::int32_t want : {wantStage, kAny}) {
    std::size_t seen = 0;
    for (std::size_t j = 0; j < c.size(); ++j)
      if (c.kind[j] == other && c.peer[j] == op.rank && c.microbatch[j] == own.microbatch[i] &&
          c.step[j] == own.step[i] && (want == kAny || c.stage[j] == want) && seen++ == ordinal)
        return OpRef{peer, lane, j};
    if (seen > 0 || want == kAny) break;
  }
  return std::nullopt;
}

}  // namespace ps::trace
