#pragma once
// A transfer is its outermost labelled range (issue 31 §1). A hand-written pipeline labels its
// sends and receives (`PP:0SEND_F3`, `forward-send`), and the profiler also records, inside each,
// the calls that did the work: c10d's dispatcher op (`c10d::send`, `c10d::recv_`) and the
// backend's own range (`gloo:send`, `nccl:recv`). Each of those is recognised as a transfer too;
// made into ops they counted every transfer two or three times (216 SEND_F for 72), and since a
// backend call names no direction, a gradient's `gloo:send` became one more SEND_F.
//
// So a recognised range that starts inside another recognised range of the same side (send in
// send, receive in receive, all-reduce in all-reduce, all-to-all in all-to-all), on the same
// track and from the same source (CPU ranges with CPU ranges, GPU projections with GPU
// projections), is part of the outer one and no op of its own. "Starts inside" rather than
// "lies inside": a backend's asynchronous work can close its range after the label's end.
// NCCL kernels are not ranges here: labelled ranges still absorb them (OpBuilder).

#include <cstdint>
#include <vector>

#include "trace/OpKind.h"
#include "trace/import/OpRecognizer.h"
#include "trace/import/RawTrace.h"

namespace ps::trace::import {

// What a recognised op takes part in, as bits: a label can be both a send and a receive
// (RecognizedOp::alsoReceives).
enum TransferSide : std::uint8_t {
  kSendSide = 1,
  kRecvSide = 2,
  kAllReduceSide = 4,
  kAllToAllSide = 8,
};

// The sides of a recognised op; 0 for compute and everything else.
std::uint8_t transferSides(const RecognizedOp& op);

// For each event, whether it is nested in an outer transfer of a shared side (see above).
// `sides[i]` is the sides of the op event i becomes, 0 for events that become no transfer op (not
// recognised, a step marker, a CPU range replaced by its GPU projection, device work). Events
// with sides 0 neither absorb nor are absorbed. O(n log n).
std::vector<bool> nestedTransfers(const std::vector<RawEvent>& events,
                                  const std::vector<std::uint8_t>& sides);

}  // namespace ps::trace::import
