#pragma once
// Builds one rank's ops (schema v1 rows, still on the file's own clock) from its raw events:
//  - recognised annotations become pipeline ops; the GPU projection of a label wins over its
//    CPU range when the file has both; a transfer is its outermost labelled range (the c10d /
//    gloo calls inside are part of it: NestedTransfers.h); a batched send+receive label is two
//    ops; labels without micro-batch numbers get them from their order (OrderedMicrobatches.h);
//  - NCCL kernels become SEND/RECV/AR/A2A ops; one inside a recognised SEND/RECV range is
//    folded into that op (its peer and bytes fill in what the label lacks);
//  - kernels inside a recognised compute op are part of it; every other kernel, copy and
//    unrecognised label is kept as a named OTHER op so the timeline still shows it.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/Result.h"
#include "trace/TraceRecords.h"
#include "trace/import/OpRecognizer.h"
#include "trace/import/RawTrace.h"

namespace ps::trace::import {

struct RankOps {
  int rank = 0;
  std::vector<OpRecord> ops;  // rank set; times on the file's clock; step = the file's number
  // Per op: its times are a host thread's range (a CPU annotation), not device work or a GPU
  // projection. A host-side send is often only a post (isend) that ends long before its receive,
  // so clock alignment cannot assume that the two end together (ClockAlignment.h). Empty when
  // not known (ops made elsewhere): every op then counts as device-timed.
  std::vector<bool> hostTimed;
  std::vector<MemorySample> memory;
};

// What recognition found, for the import summary (CLI output, the app's import dialog).
struct RecognitionStats {
  std::array<std::int64_t, kOpKindCount> opsByKind{};
  std::map<std::string, std::int64_t> unknownLabels;  // label -> occurrences
  std::int64_t recognisedLabels = 0;                  // occurrences of recognised labels
  // Recognised ranges inside a labelled transfer of the same side, folded into it
  // (NestedTransfers.h): the gloo:send / c10d::send calls of a labelled send.
  std::int64_t nestedTransfers = 0;
  // NCCL launch ranges (OpRecognizer::isNcclLaunchRange) of a rank whose NCCL kernels are in the
  // trace, folded into the op of the kernel they launched: the CPU side of the same transfer.
  std::int64_t launchRanges = 0;
  void merge(const RecognitionStats& other);
};

// `rank` and `numRanks` are the final ones: they place Megatron chunks on virtual stages
// (interleaved placement: stage = chunk·P + rank) and give unlabelled NCCL p2p a direction.
// Polls `control`'s cancel flag every few thousand events; the error then is "import cancelled".
Result<RankOps> buildRankOps(const RawRankTrace& raw, int rank, int numRanks,
                             const OpRecognizer& recognizer, RecognitionStats& stats,
                             const ReadControl& control = {});

}  // namespace ps::trace::import
