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
// Over links of finite bandwidth the walk cannot see the copies' time (an OFFLOAD keeps the bytes
// on the owner until it ends; a RELOAD longer than the op before the backward delays it), so
// each cap's move set is simulated and the pair takes the one with the lowest larger peak at an
// unchanged step time. At 1F1B p = 4 no move set helps: every RELOAD overlaps an F while the rank
// holds p micro-batches, so the owner's peak cannot fall (the reload would have to start earlier
// than the op before the backward, which BPipe's rule does not do).

#include "runtime/cost/CostModel.h"
#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime {

// `plan`: placed (layers on stages) and not repeated yet. Sets plan.activationMoves. Errors name
// what BPipe cannot balance: a forward-only plan (nothing kept), recompute (keeps stage inputs
// only), replicated pipelines (--dp: each replica balances over ranks of its own).
[[nodiscard]] Status balanceActivations(Plan& plan, const CostModel& cost);

}  // namespace ps::runtime
