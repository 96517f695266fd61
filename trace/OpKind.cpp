#include "trace/OpKind.h"

#include <array>

namespace ps::trace {
namespace {
constexpr std::array<std::string_view, kOpKindCount> kNames = {
    "F",      "B",      "I",      "W",  "R",   "OPT",     "FILL",   "SEND_F",
    "RECV_F", "SEND_B", "RECV_B", "AR", "A2A", "OFFLOAD", "RELOAD", "OTHER"};
}  // namespace

std::string_view opKindName(OpKind kind) {
  return kNames[static_cast<int>(kind)];
}

std::optional<OpKind> parseOpKind(std::string_view name) {
  for (int i = 0; i < kOpKindCount; ++i)
    if (kNames[i] == name) return static_cast<OpKind>(i);
  return std::nullopt;
}

std::string_view laneName(Lane lane) {
  switch (lane) {
    case Lane::Compute:
      return "compute";
    case Lane::Send:
      return "send";
    case Lane::Recv:
      return "recv";
    case Lane::Collective:
      return "collective";
    case Lane::Other:
      return "other";
  }
  return "?";
}

}  // namespace ps::trace
