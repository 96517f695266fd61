#pragma once
// One function per schedule generator (one .cpp each); the registry in Schedule.cpp lists them.
// Every generator runs checkBasicParams first and rejects combinations its paper does not define
// with a message naming the constraint and the values.

#include "runtime/plan/Plan.h"
#include "runtime/schedules/Schedule.h"
#include "trace/Result.h"

namespace ps::runtime {

// classic
Result<Plan> generateGpipe(const ScheduleParams& params);
Result<Plan> generateOneFOneB(const ScheduleParams& params);
// interleaved
Result<Plan> generateInterleaved1F1B(const ScheduleParams& params);
Result<Plan> generateLoopedBfs(const ScheduleParams& params);
// zero-bubble
Result<Plan> generateZeroBubbleH1(const ScheduleParams& params);
Result<Plan> generateZeroBubbleH2(const ScheduleParams& params);
Result<Plan> generateZeroBubbleV(const ScheduleParams& params);
// bidirectional
Result<Plan> generateChimera(const ScheduleParams& params);
Result<Plan> generateDualPipeV(const ScheduleParams& params);
Result<Plan> generateBitPipe(const ScheduleParams& params);
// asynchronous
Result<Plan> generatePipeDream(const ScheduleParams& params);
Result<Plan> generatePipeDream2BW(const ScheduleParams& params);
Result<Plan> generateNF1B(const ScheduleParams& params);

}  // namespace ps::runtime
