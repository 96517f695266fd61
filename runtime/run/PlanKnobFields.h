#pragma once
// What the plan knob table's files (PlanKnobs.cpp, PlanCostKnobs.cpp) share: a row's PlanSpec
// accessor from a member pointer, and the device, link and cost rows.

#include <span>

#include "runtime/run/PlanKnobs.h"

namespace ps::runtime {

template <auto Member>
constexpr KnobField field() {
  return +[](PlanSpec & s) -> auto& {
    return s.*Member;
  };
}
template <auto Member>
constexpr KnobField uniform() {
  return +[](PlanSpec & s) -> auto& {
    return s.uniform.*Member;
  };
}

// The device, link and cost rows, in config_json's order (after the plan's own rows).
std::span<const PlanKnob> costPlanKnobs();
// The later papers' mechanisms (PlanMechanismKnobs.cpp): --operators, --eager-sync.
std::span<const PlanKnob> mechanismPlanKnobs();

}  // namespace ps::runtime
