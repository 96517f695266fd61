#pragma once
// BPipe's activation balancing (Kim et al., "BPipe: Memory-Balanced Pipeline Parallelism for
// Training Large Language Models", ICML 2023). Under 1F1B the first ranks hold the most
// activations (stage s keeps p − s micro-batches) and the last the fewest. BPipe pairs rank r
// with rank P−1−r: the heavier of the two sends some micro-batches' activations to the lighter
// right after their F (OFFLOAD) and takes them back just before their backward (RELOAD), so the
// pair's peaks meet in the middle. The copies run beside compute, over the pair's link.
//
// Which micro-batches move is read off each rank's program, as the paper does: walking it in
// order with the bytes each op keeps and frees, for a cap on what the heavy rank keeps, an F whose
// activations would pass the cap moves (never one whose backward comes right after it: its
// RELOAD would start at once). The cap chosen is the one with the lowest larger peak of the pair
// (the holder's own peak plus what it holds at most); a pair that no cap improves moves nothing.

#include "runtime/cost/CostModel.h"
#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime {

// `plan`: placed (layers on stages) and not repeated yet. Sets plan.activationMoves. Errors name
// what BPipe cannot balance: a forward-only plan (nothing kept), recompute (keeps stage inputs
// only), replicated pipelines (--dp: each replica balances over ranks of its own).
[[nodiscard]] Status balanceActivations(Plan& plan, const CostModel& cost);

}  // namespace ps::runtime
