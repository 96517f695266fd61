#pragma once
// The name mark of a send/receive's waiting part (trace/import/PeerWaits: an imported transfer
// split into the wait for its peer and the transfer itself, both ops of the same kind, step,
// stage, micro-batch and peer). The analysis pairs transfers by order (the k-th send with the
// k-th receive), so it must count the two parts of one transfer once: it knows the waiting part
// by this mark, which the importer writes and nothing else does.

#include <string_view>

namespace ps::trace {

inline constexpr std::string_view kPeerWaitMark = " · waiting for rank ";

constexpr bool isPeerWaitName(std::string_view name) {
  return name.find(kPeerWaitMark) != std::string_view::npos;
}

}  // namespace ps::trace
