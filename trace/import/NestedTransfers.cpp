#include "trace/import/NestedTransfers.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace ps::trace::import {
namespace {

std::uint8_t sideOf(OpKind kind) {
  if (isSend(kind)) return kSendSide;
  if (isRecv(kind)) return kRecvSide;
  if (kind == OpKind::AR) return kAllReduceSide;
  if (kind == OpKind::A2A) return kAllToAllSide;
  return 0;
}

}  // namespace

std::uint8_t transferSides(const RecognizedOp& op) {
  return static_cast<std::uint8_t>(sideOf(op.kind) | sideOf(op.alsoReceives));
}

std::vector<bool> nestedTransfers(const std::vector<RawEvent>& events,
                                  const std::vector<std::uint8_t>& sides) {
  std::vector<bool> nested(events.size(), false);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < events.size(); ++i)
    if (sides[i] != 0) order.push_back(i);
  // By track, then start; of ranges starting together the longer (then the shallower) is outer.
  auto key = [&](std::size_t i) {
    const RawEvent& e = events[i];
    return std::make_tuple(e.source, e.track, e.start_ns, -e.end_ns, e.depth, i);
  };
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return key(a) < key(b); });

  // The open outer transfers of the current track, outermost first. Ranges on one track nest,
  // so the stack stays as deep as the labels are (one or two).
  std::vector<std::size_t> open;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t i = order[k];
    const RawEvent& e = events[i];
    if (k > 0) {
      const RawEvent& prev = events[order[k - 1]];
      if (prev.source != e.source || prev.track != e.track) open.clear();
    }
    while (!open.empty() && events[open.back()].end_ns <= e.start_ns)
      open.pop_back();
    const bool inside = std::any_of(open.begin(), open.end(), [&](std::size_t o) {
      const RawEvent& outer = events[o];
      return (sides[o] & sides[i]) != 0 && outer.start_ns <= e.start_ns &&
             e.start_ns < outer.end_ns;
    });
    if (inside)
      nested[i] = true;
    else
      open.push_back(i);
  }
  return nested;
}

}  // namespace ps::trace::import
