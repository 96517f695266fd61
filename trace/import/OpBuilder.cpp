#include "trace/import/OpBuilder.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "trace/import/NestedTransfers.h"
#include "trace/import/OrderedMicrobatches.h"

namespace ps::trace::import {
namespace {

constexpr bool isGpuSide(EventSource s) {
  return s != EventSource::CpuAnnotation;
}
constexpr bool isComm(OpKind k) {
  return isSend(k) || isRecv(k);
}

// Sorted, disjoint intervals with a containment query.
class IntervalSet {
 public:
  void add(std::int64_t s, std::int64_t e) { spans_.emplace_back(s, e); }
  void seal() {
    std::sort(spans_.begin(), spans_.end());
    std::vector<std::pair<std::int64_t, std::int64_t>> merged;
    for (const auto& span : spans_) {
      if (!merged.empty() && span.first <= merged.back().second)
        merged.back().second = std::max(merged.back().second, span.second);
      else
        merged.push_back(span);
    }
    spans_ = std::move(merged);
  }
  bool contains(std::int64_t s, std::int64_t e) const {
    auto it = std::upper_bound(spans_.begin(), spans_.end(), std::make_pair(s, INT64_MAX));
    if (it == spans_.begin()) return false;
    --it;
    return it->first <= s && e <= it->second;
  }

 private:
  std::vector<std::pair<std::int64_t, std::int64_t>> spans_;
};

// Direction of an NCCL point-to-point op without a label: towards a higher rank is the forward
// direction of a chain pipeline.
OpKind p2pKind(CommOp comm, int rank, int peer) {
  const bool towardsHigher = peer < 0 || peer > rank;
  if (comm == CommOp::Recv) return towardsHigher ? OpKind::RECV_B : OpKind::RECV_F;
  return towardsHigher ? OpKind::SEND_F : OpKind::SEND_B;
}

OpKind collectiveKind(CommOp comm) {
  return comm == CommOp::AllToAll ? OpKind::A2A : OpKind::AR;
}

// Where a labelled SEND/RECV goes when no NCCL kernel says: the neighbour in a looped chain.
int guessedPeer(OpKind kind, int rank, int numRanks) {
  if (numRanks <= 1) return -1;
  const bool forward = kind == OpKind::SEND_F || kind == OpKind::RECV_B;
  return forward ? (rank + 1) % numRanks : (rank + numRanks - 1) % numRanks;
}

struct LabelInfo {
  bool stepMarker = false;
  bool backendCall = false;  // "gloo:send", "c10d::recv_": OpRecognizer::isBackendCall
  bool ncclLaunch = false;   // "nccl:coalesced", "record_param_comms": isNcclLaunchRange
  std::optional<RecognizedOp> op;
};

}  // namespace

void RecognitionStats::merge(const RecognitionStats& other) {
  for (int k = 0; k < kOpKindCount; ++k)
    opsByKind[k] += other.opsByKind[k];
  for (const auto& [label, n] : other.unknownLabels)
    unknownLabels[label] += n;
  recognisedLabels += other.recognisedLabels;
  nestedTransfers += other.nestedTransfers;
  launchRanges += other.launchRanges;
}

Result<RankOps> buildRankOps(const RawRankTrace& raw, int rank, int numRanks,
                             const OpRecognizer& recognizer, RecognitionStats& stats,
                             const ReadControl& control) {
  RankOps out;
  out.rank = rank;

  // Recognise each distinct annotation name once. User rules run here: cancellable, since a
  // trace can hold millions of distinct labels.
  std::vector<LabelInfo> labels(raw.names.size());
  std::vector<bool> isLabel(raw.names.size(), false);
  std::unordered_set<std::int32_t> hasGpuVersion;
  constexpr std::size_t kPollEvery = 4096;
  for (std::size_t i = 0; i < raw.events.size(); ++i) {
    if (i % kPollEvery == 0 && control.cancelled()) return Error{"import cancelled"};
    const RawEvent& e = raw.events[i];
    if (!isAnnotation(e.source) || e.name < 0 || e.stated >= 0) continue;
    if (!isLabel[e.name]) {
      isLabel[e.name] = true;
      const std::string& name = raw.names[e.name];
      labels[e.name].stepMarker = OpRecognizer::isStepMarker(name);
      labels[e.name].backendCall = OpRecognizer::isBackendCall(name);
      labels[e.name].ncclLaunch = OpRecognizer::isNcclLaunchRange(name);
      if (!labels[e.name].stepMarker) labels[e.name].op = recognizer.recognize(name);
    }
    if (e.source == EventSource::GpuAnnotation) hasGpuVersion.insert(e.name);
  }

  auto makeOp = [&](const RawEvent& e, OpKind kind) {
    OpRecord op;
    op.rank = rank;
    op.kind = kind;
    op.step = e.step;
    op.start_ns = e.start_ns;
    op.end_ns = std::max(e.end_ns, e.start_ns);
    if (e.peer >= 0) op.peer_rank = e.peer;
    if (e.bytes >= 0) op.bytes = e.bytes;
    if (e.name >= 0) op.name = raw.names[e.name];
    return op;
  };

  // An NCCL launch range is the CPU side of the transfer its kernel did, when the kernels are in
  // the trace: the kernel, or the labelled range that holds it, is the op. So are the ranges
  // that launched nothing (batch_isend_irecv's "nccl:send" launches from "nccl:coalesced"; an
  // older file links no call to its kernel) and unrecognised ones projected onto the kernel
  // ("nccl:coalesced", "record_param_comms"). A recognised one projected onto its kernel stays:
  // it is the op that holds the kernel, under its torch name.
  const bool ncclKernels = std::any_of(raw.events.begin(), raw.events.end(), [](const RawEvent& e) {
    return e.source == EventSource::NcclKernel;
  });
  auto launchRange = [&](const RawEvent& e) {
    const LabelInfo& info = labels[e.name];
    return ncclKernels && e.stated < 0 && info.ncclLaunch &&
           (e.source == EventSource::CpuAnnotation || !info.op);
  };

  // A transfer is its outermost labelled range: the c10d / backend calls inside a labelled send
  // or receive are part of it, not ops of their own (NestedTransfers.h).
  std::vector<std::uint8_t> sides(raw.events.size(), 0);
  for (std::size_t i = 0; i < raw.events.size(); ++i) {
    const RawEvent& e = raw.events[i];
    if (!isAnnotation(e.source) || e.name < 0 || e.stated >= 0) continue;
    const LabelInfo& info = labels[e.name];
    if (launchRange(e)) continue;
    if (!info.op || (e.source == EventSource::CpuAnnotation && hasGpuVersion.count(e.name)))
      continue;
    sides[i] = transferSides(*info.op);
  }
  const std::vector<bool> nested = nestedTransfers(raw.events, sides);
  std::vector<std::size_t> unindexed;  // ops to number by order (OrderedMicrobatches.h)
  std::vector<std::size_t> hostOps;    // recognised ops timed by a host thread's range

  // 1. Annotations. Recognised compute ops on the GPU side cover their kernels; recognised
  //    comm ops on the GPU side absorb the NCCL kernels inside them.
  IntervalSet computeCover;
  struct CommLabel {
    std::size_t opIndex;
    std::int64_t start, end;
  };
  std::vector<CommLabel> commLabels;
  for (std::size_t i = 0; i < raw.events.size(); ++i) {
    const RawEvent& e = raw.events[i];
    if (!isAnnotation(e.source) || e.name < 0) continue;
    std::optional<RecognizedOp> stated;
    if (e.stated >= 0) {  // the file states the op (PipeScope's export): no recognition
      const StatedOp& s = raw.statedOps[static_cast<std::size_t>(e.stated)];
      stated = RecognizedOp{.kind = s.kind, .stage = s.stage, .microbatch = s.microbatch};
    }
    const LabelInfo& info = labels[e.name];
    if (!stated && info.stepMarker) continue;
    if (e.source == EventSource::CpuAnnotation && hasGpuVersion.count(e.name)) continue;
    if (launchRange(e)) {
      ++stats.launchRanges;
      continue;
    }
    if (!stated && !info.op) {
      ++stats.unknownLabels[raw.names[e.name]];
      out.ops.push_back(makeOp(e, OpKind::OTHER));
      continue;
    }
    ++stats.recognisedLabels;
    if (nested[i]) {
      ++stats.nestedTransfers;
      continue;
    }
    const RecognizedOp& r = stated ? *stated : *info.op;
    OpRecord op = makeOp(e, r.kind);
    if (r.stage >= 0)
      op.stage = r.stage;
    else if (r.chunk >= 0)
      op.stage = r.chunk * numRanks + rank;
    if (r.microbatch >= 0) op.microbatch = r.microbatch;
    if (op.step < 0 && r.step >= 0) op.step = r.step;
    const bool byOrder = !stated && numberedByOrder(r, info.backendCall);
    if (byOrder) op.stage = rank;  // one stage per rank: an unindexed label names no chunk
    // Kernels inside a recognised op's GPU span are its work (a projected range spans what it
    // launched, on every stream), not ops of their own; NCCL kernels go to comm labels below.
    if (r.kind != OpKind::OTHER && isGpuSide(e.source)) computeCover.add(op.start_ns, op.end_ns);
    // A batched send+receive label is two ops over one range (RecognizedOp::alsoReceives).
    std::optional<OpRecord> receiveHalf;
    if (!stated && r.alsoReceives != OpKind::OTHER) {
      receiveHalf = op;
      receiveHalf->kind = r.alsoReceives;
    }
    for (OpRecord* half : {&op, receiveHalf ? &*receiveHalf : nullptr}) {
      if (half == nullptr) continue;
      // Labelled transfers and collectives absorb the NCCL kernels that do their work.
      if ((isComm(half->kind) || half->kind == OpKind::AR || half->kind == OpKind::A2A) &&
          isGpuSide(e.source))
        commLabels.push_back({out.ops.size(), half->start_ns, half->end_ns});
      if (byOrder) unindexed.push_back(out.ops.size());
      if (e.source == EventSource::CpuAnnotation) hostOps.push_back(out.ops.size());
      out.ops.push_back(std::move(*half));
    }
  }
  computeCover.seal();
  std::sort(commLabels.begin(), commLabels.end(),
            [](const CommLabel& a, const CommLabel& b) { return a.start < b.start; });

  // The recognised comm label (if any) whose GPU span holds the NCCL kernel `k`. Several labels
  // can hold it (a receive and a send issued together); prefer, in order: the label whose
  // looped-chain neighbour is the kernel's peer, one that has no kernel yet, one whose direction
  // the kernel shares.
  std::vector<bool> absorbed(out.ops.size(), false);
  auto enclosingCommLabel = [&](const RawEvent& k) -> OpRecord* {
    auto it = std::upper_bound(commLabels.begin(), commLabels.end(), k.start_ns,
                               [](std::int64_t t, const CommLabel& c) { return t < c.start; });
    std::size_t best = SIZE_MAX;
    int bestScore = -1;
    // Comm labels of one rank hardly nest; a few steps back is enough to find the holders.
    for (int look = 0; look < 16 && it != commLabels.begin(); ++look) {
      --it;
      if (!(it->start <= k.start_ns && k.end_ns <= it->end)) continue;
      const OpRecord& label = out.ops[it->opIndex];
      int score = 0;
      if (k.peer >= 0 && isComm(label.kind) && guessedPeer(label.kind, rank, numRanks) == k.peer)
        score += 4;
      if (!absorbed[it->opIndex]) score += 2;
      if ((k.comm == CommOp::Send && isSend(label.kind)) ||
          (k.comm == CommOp::Recv && isRecv(label.kind)))
        score += 1;
      if (score > bestScore) {
        bestScore = score;
        best = it->opIndex;
      }
    }
    if (best == SIZE_MAX) return nullptr;
    absorbed[best] = true;
    return &out.ops[best];
  };

  // 2. Device work.
  for (const auto& e : raw.events) {
    switch (e.source) {
      case EventSource::CpuAnnotation:
      case EventSource::GpuAnnotation:
        break;
      case EventSource::NcclKernel: {
        if (OpRecord* label = enclosingCommLabel(e)) {
          if (!label->peer_rank && e.peer >= 0 && isComm(label->kind)) label->peer_rank = e.peer;
          if (e.bytes >= 0) label->bytes = label->bytes.value_or(0) + e.bytes;
          break;
        }
        const bool p2p =
            e.comm == CommOp::Send || e.comm == CommOp::Recv || e.comm == CommOp::SendRecv;
        out.ops.push_back(makeOp(e, p2p ? p2pKind(e.comm, rank, e.peer) : collectiveKind(e.comm)));
        break;
      }
      case EventSource::Kernel:
        if (!computeCover.contains(e.start_ns, e.end_ns))
          out.ops.push_back(makeOp(e, OpKind::OTHER));
        break;
      case EventSource::Memcpy:
        // Peer-to-peer copies are link transfers; host copies stay as named OTHER work.
        out.ops.push_back(makeOp(
            e, e.peer >= 0 ? (e.peer > rank ? OpKind::SEND_F : OpKind::SEND_B) : OpKind::OTHER));
        break;
      case EventSource::Memset:
        out.ops.push_back(makeOp(e, OpKind::OTHER));
        break;
    }
  }

  // Labelled SEND/RECV ops without an NCCL kernel inside: the looped-chain neighbour.
  for (auto& op : out.ops)
    if (isComm(op.kind) && !op.peer_rank && op.stage) {
      const int peer = guessedPeer(op.kind, rank, numRanks);
      if (peer >= 0) op.peer_rank = peer;
    }

  // 3. Steps from ProfilerStep ranges where the event did not say.
  if (!raw.steps.empty()) {
    for (auto& op : out.ops) {
      if (op.step >= 0) continue;
      auto it = std::upper_bound(raw.steps.begin(), raw.steps.end(), op.start_ns,
                                 [](std::int64_t t, const StepRange& s) { return t < s.start_ns; });
      if (it != raw.steps.begin() && op.start_ns < std::prev(it)->end_ns)
        op.step = static_cast<int>(std::prev(it)->number);
    }
  }

  // 4. Micro-batches of unindexed labels from their order in each step (OrderedMicrobatches.h).
  numberByOrder(out.ops, unindexed);
  out.hostTimed.assign(out.ops.size(), false);
  for (const std::size_t i : hostOps)
    out.hostTimed[i] = true;

  for (const auto& op : out.ops)
    ++stats.opsByKind[static_cast<int>(op.kind)];
  out.memory.reserve(raw.memory.size());
  for (const auto& m : raw.memory)
    out.memory.push_back({rank, m.t_ns, m.bytes});
  return out;
}

}  // namespace ps::trace::import
