#include "trace/analysis/OpRelations.h"

#include <algorithm>
#include <climits>
#include <initializer_list>
#include <tuple>

#include "trace/PeerWaitName.h"
#include "trace/analysis/ConfigJson.h"
#include "trace/analysis/PresentRanks.h"

namespace ps::trace {
namespace {

constexpr std::int32_t kAny = RelationIndex::kAnyValue;

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

bool optimizerIsPerRank(const RunTrace& run) {
  const auto sync = jsonTopLevelString(run.info.config_json, "optimizer_sync");
  return sync && *sync == "none";
}

// The ranks present (PresentRanks.h), as numbers.
std::vector<int> presentRankList(const RunTrace& run) {
  const auto mask = presentRankMask(run);
  std::vector<int> out;
  for (std::size_t r = 0; r < mask.size(); ++r)
    if (mask[r]) out.push_back(static_cast<int>(r));
  return out;
}

// Per interned name, whether it marks the waiting part of a split transfer (PeerWaitName.h).
std::vector<bool> peerWaitNamesOf(const RunTrace& run) {
  std::vector<bool> out(run.names.size());
  for (std::size_t n = 0; n < run.names.size(); ++n)
    out[n] = isPeerWaitName(run.names[n]);
  return out;
}

class Finder {
 public:
  explicit Finder(const RunTrace& run) : Finder(run, nullptr, optimizerIsPerRank(run)) {}
  Finder(const RunTrace& run, const RelationIndex* index, bool optimizerPerRank,
         const std::vector<int>* everyRank = nullptr,
         const std::vector<bool>* peerWaitNames = nullptr)
      : run_(run),
        index_(index),
        optimizerPerRank_(optimizerPerRank),
        everyRank_(everyRank),
        peerWaitNames_(peerWaitNames) {}

  const RunTrace& run() const { return run_; }
  bool optimizerPerRank() const { return optimizerPerRank_; }
  // Every rank present (not every number below the largest: a stray rank leaves empty slots).
  const std::vector<int>& everyRank() const {
    if (everyRank_ == nullptr) {
      ownRanks_ = presentRankList(run_);
      everyRank_ = &ownRanks_;
    }
    return *everyRank_;
  }

  // Whether op i of `c` is the waiting part of a transfer the import split in two: the pairing
  // by order counts a transfer once, by its other part.
  bool isWaitPart(const OpColumns& c, std::size_t i) const {
    if (peerWaitNames_ == nullptr) {
      ownWaitNames_ = peerWaitNamesOf(run_);
      peerWaitNames_ = &ownWaitNames_;
    }
    const std::int32_t n = c.name[i];
    return n >= 0 && static_cast<std::size_t>(n) < peerWaitNames_->size() && (*peerWaitNames_)[n];
  }

  // The ranks the stages table places `stage` on; every rank when it names none.
  std::vector<int> hostsOf(std::int32_t stage) const {
    std::vector<int> out;
    for (const auto& s : run_.stages)
      if (s.stage == stage && s.rank >= 0 && static_cast<std::size_t>(s.rank) < run_.ranks.size() &&
          std::find(out.begin(), out.end(), s.rank) == out.end())
        out.push_back(s.rank);
    if (out.empty()) return everyRank();
    return out;
  }

  // Calls fn(index) for each op of `lane` on `rank` with the given step and, unless kAny, stage
  // and micro-batch, in lane order: through the index when there is one, else by a scan.
  template <class Fn>
  void forEach(int rank, Lane lane, std::int32_t stage, std::int32_t mb, std::int32_t step,
               Fn&& fn) const {
    if (index_ != nullptr && (stage != kAny || mb == kAny)) {
      index_->forEach(rank, lane, step, stage, mb, fn);
      return;
    }
    const OpColumns& c = run_.ranks[rank].lane(lane);
    for (std::size_t i = 0; i < c.size(); ++i)
      if (c.step[i] == step && (stage == kAny || c.stage[i] == stage) &&
          (mb == kAny || c.microbatch[i] == mb))
        fn(i);
  }

  // Appends the ops of `lane` on `ranks` with a kind in `kinds` and the given fields.
  void find(const std::vector<int>& ranks, Lane lane, std::uint32_t kinds, std::int32_t stage,
            std::int32_t mb, std::int32_t step, std::vector<OpRef>& out) const {
    for (int r : ranks) {
      const OpColumns& c = run_.ranks[r].lane(lane);
      forEach(r, lane, stage, mb, step, [&](std::size_t i) {
        if (kinds >> static_cast<int>(c.kind[i]) & 1u) out.push_back({r, lane, i});
      });
    }
  }
  void findStage(Lane lane, std::uint32_t kinds, std::int32_t stage, std::int32_t mb,
                 std::int32_t step, std::vector<OpRef>& out) const {
    find(hostsOf(stage), lane, kinds, stage, mb, step, out);
  }

 private:
  const RunTrace& run_;
  const RelationIndex* index_ = nullptr;
  bool optimizerPerRank_ = false;
  mutable const std::vector<int>* everyRank_ = nullptr;
  mutable std::vector<int> ownRanks_;
  mutable const std::vector<bool>* peerWaitNames_ = nullptr;
  mutable std::vector<bool> ownWaitNames_;
};

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

std::optional<OpRef> transferOf(const Finder& f, const OpRef& op) {
  const RunTrace& run = f.run();
  const OpColumns& own = run.ranks[op.rank].lane(op.lane);
  const std::size_t i = op.index;
  const OpKind kind = own.kind[i];
  if (!isSend(kind) && !isRecv(kind)) return std::nullopt;
  const std::int32_t peer = own.peer[i];
  if (peer < 0 || static_cast<std::size_t>(peer) >= run.ranks.size()) return std::nullopt;
  // Which of the equal-looking transfers on this side it is: the k-th pairs with the k-th. A
  // transfer split into its wait for the peer and the transfer itself counts once (its waiting
  // part, which starts first, takes the ordinal of the rest and so pairs with the same op).
  std::size_t ordinal = 0;
  f.forEach(op.rank, op.lane, own.stage[i], own.microbatch[i], own.step[i], [&](std::size_t j) {
    ordinal += j < i && own.kind[j] == kind && own.peer[j] == peer && !f.isWaitPart(own, j);
  });
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
    std::optional<OpRef> found;
    f.forEach(peer, lane, want, own.microbatch[i], own.step[i], [&](std::size_t j) {
      if (!found && c.kind[j] == other && c.peer[j] == op.rank && !f.isWaitPart(c, j) &&
          seen++ == ordinal)
        found = OpRef{peer, lane, j};
    });
    if (found) return found;
    if (seen > 0 || want == kAny) break;
  }
  return std::nullopt;
}

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
      f.find(f.optimizerPerRank() ? self : f.everyRank(), Lane::Compute, kGrad, kAny, kAny, k.step,
             in);
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
      if (auto s = transferOf(f, op)) in.push_back(*s);
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
      if (auto r = transferOf(f, op)) c.push_back(*r);
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
    const std::vector<int> self{op.rank};
    f.find(f.optimizerPerRank() ? self : f.everyRank(), Lane::Compute, maskOf({OpKind::OPT}), kAny,
           kAny, k.step, out);
  }
  return out;
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
  return transferOf(Finder(run), op);
}

RelationIndex::RelationIndex(const RunTrace& run)
    : run_(run),
      optimizerPerRank_(optimizerIsPerRank(run)),
      everyRank_(presentRankList(run)),
      peerWaitNames_(peerWaitNamesOf(run)),
      lanes_(run.ranks.size()) {
  for (std::size_t r = 0; r < run.ranks.size(); ++r)
    for (int l = 0; l < kLaneCount; ++l) {
      const OpColumns& c = run.ranks[r].lanes[l];
      auto& entries = lanes_[r][l];
      entries.reserve(c.size());
      for (std::size_t i = 0; i < c.size(); ++i)
        entries.push_back({c.step[i], c.stage[i], c.microbatch[i], i});
      std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return std::tie(a.step, a.stage, a.mb, a.index) < std::tie(b.step, b.stage, b.mb, b.index);
      });
    }
}

std::vector<OpRef> RelationIndex::inputs(const OpRef& op) const {
  if (!inRange(run_, op)) return {};
  return inputsOf(Finder(run_, this, optimizerPerRank_, &everyRank_, &peerWaitNames_), op);
}

std::optional<OpRef> RelationIndex::matchingTransfer(const OpRef& op) const {
  if (!inRange(run_, op)) return std::nullopt;
  return transferOf(Finder(run_, this, optimizerPerRank_, &everyRank_, &peerWaitNames_), op);
}

std::pair<const RelationIndex::Entry*, const RelationIndex::Entry*> RelationIndex::range(
    int rank, Lane lane, std::int32_t step, std::int32_t stage, std::int32_t mb) const {
  const auto& entries = lanes_[rank][static_cast<int>(lane)];
  const Entry* first = entries.data();
  const Entry* last = first + entries.size();
  if (stage == kAnyValue && mb == kAnyValue) {
    first = std::lower_bound(first, last, step,
                             [](const Entry& e, std::int32_t s) { return e.step < s; });
    last = std::upper_bound(first, last, step,
                            [](std::int32_t s, const Entry& e) { return s < e.step; });
    return {first, last};
  }
  const auto key = std::tie(step, stage, mb);
  first = std::lower_bound(first, last, key, [](const Entry& e, const auto& k) {
    return std::tie(e.step, e.stage, e.mb) < k;
  });
  last = std::upper_bound(first, last, key, [](const auto& k, const Entry& e) {
    return k < std::tie(e.step, e.stage, e.mb);
  });
  return {first, last};
}

}  // namespace ps::trace
