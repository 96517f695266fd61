#pragma once
// DiffusionPipe (Tian et al., "DiffusionPipe: Training Large Diffusion Models with Efficient
// Pipelines", MLSys 2024): a diffusion model's frozen parts (text encoder, VAE encoder) run
// forward only, once per micro-batch, and their output is the trainable backbone's input. Run
// before the pipeline, they lengthen every step; DiffusionPipe packs them into the pipeline's
// bubbles instead, computing the next step's frozen work in this step's idle time.
//
// Each frozen forward is a FILL op (stage 0, the micro-batch it feeds, `ahead` = 1 when it feeds
// the next step); F(0, m) of the step it feeds waits for it.
//   Before:  every step's FILLs first, shared round-robin over the ranks (m mod P), the
//            pipeline after them: the baseline.
//   Bubbles: step 0's as Before (nothing runs earlier); then for each step k the FILLs of step
//            k+1 go first-fit, in micro-batch order, into the earliest idle gap of step k on any
//            rank that holds them whole (at that rank's speed), read off a simulation of the plan
//            so far; an op after a gap never moves, since the FILL ends within it. What fits
//            nowhere runs Before in step k+1, on the rank with the least such work.

#include "runtime/cost/CostModel.h"
#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime {

enum class FillPlacement { Before, Bubbles };

// `plan`: placed and repeated over its steps (synchronous), cost.frozenFwdNs > 0. Adds one FILL
// per (micro-batch, step). Errors: asynchronous schedules (their steps interleave), a plan that
// fails to simulate.
[[nodiscard]] Status fillFrozenWork(Plan& plan, const CostModel& cost, FillPlacement placement);

}  // namespace ps::runtime
