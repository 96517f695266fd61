#pragma once
// What a Kineto kernel's or copy's args say about communication: an NCCL kernel's collective,
// direction, peer and bytes (PyTorch's record_param_comms args: "Collective name", "dtype",
// "In msg nelems", "Src Rank", ...), and a peer-to-peer memcpy's bytes and devices. The builder
// (KinetoTraceBuilder) calls these while adding an event; peers that need the trace's own rank
// are left open for its last pass (KinetoTraceFinish).

#include <cstdint>
#include <optional>

#include "trace/import/RawTrace.h"
#include "trace/import/kineto/KinetoEvent.h"

namespace ps::trace::import {

// The Src/Dst Rank of an NCCL kernel whose direction neither its name nor its args tell.
struct OpenNcclPeer {
  std::int64_t src = -1;
  std::int64_t dst = -1;
};

// Refines `raw.comm` (read from the kernel's name) by the args and sets `raw.peer` and
// `raw.bytes` where they tell them. Returns Src/Dst Rank when the args name either but the
// direction stays open.
[[nodiscard]] std::optional<OpenNcclPeer> readNcclArgs(const KinetoEvent& event, RawEvent& raw);

// The devices of a memcpy between two of them: the one it ran on and the other.
struct CopyDevices {
  std::int64_t self = -1;
  std::int64_t other = -1;
};

// Sets `raw.bytes` from the args; returns the devices when the copy is between two.
[[nodiscard]] std::optional<CopyDevices> readCopyArgs(const KinetoEvent& event, RawEvent& raw);

}  // namespace ps::trace::import
