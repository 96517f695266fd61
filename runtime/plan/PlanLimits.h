#pragma once
// What one plan may hold, checked before anything is built (PlanSize.h) so that a size the flags
// accept is refused with its numbers instead of exhausting memory half-way through generation,
// step repetition, validation or simulation. Every later stage (the op graph, the simulation's
// records, transfers and memory samples, the trace rows) grows linearly with the actions, about
// 400 bytes per action in all, so the action limit bounds them too: 2·10^7 actions is ~8 GB at
// most, 150 times DESIGN §3's P=128, M=4096 plan.

#include <cstdint>
#include <string>

namespace ps::runtime {

inline constexpr double kMaxPlanActions = 2e7;

// A count in short scientific form for messages: "8.6e9", "2.0e7", "1048576" (below 10^7 exact).
std::string formatCount(double n);

}  // namespace ps::runtime
