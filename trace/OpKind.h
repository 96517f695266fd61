#pragma once
// The op kinds of DESIGN §2, shared by the plan IR, the recorders, the store and the importers.
// Names are those of torch.distributed.pipelining where it has one; the text form is the schema's.

#include <cstdint>
#include <optional>
#include <string_view>

namespace ps::trace {

enum class OpKind : std::uint8_t {
  F,        // forward
  B,        // full backward (input + weight gradients)
  I,        // backward for inputs only
  W,        // backward for weights only
  R,        // recompute (forward again before backward)
  OPT,      // optimizer step
  FILL,     // non-trainable forward work placed in bubbles
  SEND_F,   // activation send to the next stage
  RECV_F,   // activation receive from the previous stage
  SEND_B,   // gradient send to the previous stage
  RECV_B,   // gradient receive from the next stage
  AR,       // gradient all-reduce
  A2A,      // all-to-all
  OFFLOAD,  // activation moved to host or another stage
  RELOAD,   // activation brought back
  OTHER,    // imported work that is none of the above (keeps its original name)
};

inline constexpr int kOpKindCount = static_cast<int>(OpKind::OTHER) + 1;

// Schema/CSV spelling of a kind, e.g. "SEND_F".
std::string_view opKindName(OpKind kind);
// Inverse of opKindName; nullopt for an unknown spelling (case-sensitive, as in torch).
std::optional<OpKind> parseOpKind(std::string_view name);

// Compute kinds count as busy time in the bubble definition (DESIGN §4).
constexpr bool isCompute(OpKind k) {
  return k == OpKind::F || k == OpKind::B || k == OpKind::I || k == OpKind::W || k == OpKind::R ||
         k == OpKind::OPT || k == OpKind::FILL;
}
constexpr bool isSend(OpKind k) {
  return k == OpKind::SEND_F || k == OpKind::SEND_B;
}
constexpr bool isRecv(OpKind k) {
  return k == OpKind::RECV_F || k == OpKind::RECV_B;
}

// The timeline lanes of one rank. Ops of one lane never need more than one row per rank in the
// common case; imported traces may overlap within a lane and the views cope with that.
enum class Lane : std::uint8_t { Compute, Send, Recv, Collective, Other };
inline constexpr int kLaneCount = 5;

constexpr Lane laneOf(OpKind k) {
  if (isCompute(k)) return Lane::Compute;
  if (isSend(k)) return Lane::Send;
  if (isRecv(k)) return Lane::Recv;
  if (k == OpKind::OTHER) return Lane::Other;
  return Lane::Collective;  // AR, A2A, OFFLOAD, RELOAD
}
std::string_view laneName(Lane lane);

}  // namespace ps::trace
