#pragma once
// The one-chunk zero-bubble order shared by zb-h1 and zb-h2 (internal to runtime/schedules).

#include <vector>

#include "runtime/plan/Plan.h"

namespace ps::runtime::sched {

// Rank `rank`'s order for one stage (= rank) and m micro-batches, with F = I = W = 1 unit:
//  1. `warmup` forwards F0..F(w-1);
//  2. `cycles` rounds of I(j), W(j), F(w+j) — the steady state, one micro-batch per 3 units
//     (W before F keeps the in-flight count at the warm-up's);
//  3. for each further micro-batch j but the last: I(j), then the next F while any is left,
//     else the oldest pending W — the I passes now come every 2 units, so the backward
//     wave of the last micro-batches runs through the pipeline without waiting;
//  4. I(m-1), then every W still pending: the postponed W passes fill what would be the
//     cool-down bubble.
// Needs 1 <= warmup and warmup + cycles <= m.
std::vector<Action> zeroBubbleRankOrder(int rank, int m, int warmup, int cycles);

}  // namespace ps::runtime::sched
