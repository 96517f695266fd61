#pragma once
// The order doctor's moves in the report: a text section ("rank 1  order 0.62 ms  move 1W3
// before 1I5 (step 0): -0.41 ms a step") and the JSON array `order_moves`.

#include <string>

#include "trace/JsonWriter.h"
#include "trace/analysis/RunExplanation.h"

namespace ps::trace {

// Empty when no rank waited on its order.
std::string orderFixesText(const RunExplanation& why);
// "order_moves": [{"rank", "step", "move", "before", "order_ns", "gain_ns", "gain_from"
// ("simulation" or "retiming")}], largest gain first.
void writeOrderFixes(JsonWriter& w, const RunExplanation& why);

}  // namespace ps::trace
