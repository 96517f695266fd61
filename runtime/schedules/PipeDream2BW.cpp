// PipeDream-2BW — D. Narayanan, A. Phanishayee, K. Shi, X. Chen, M. Zaharia:
// "Memory-Efficient Pipeline-Parallel DNN Training", ICML 2021.
//
// The same never-flushing 1F1B order as PipeDream, but gradients are accumulated over m
// micro-batches and the weights are double-buffered: a new version is produced every m
// micro-batches (OPT after the step's last backward), and micro-batches whose forward saw the
// previous version finish their backward with it, so only two versions ever exist
// (WeightVersioning::DoubleBuffered). Constraint (the paper's): m >= p, so that every micro-batch
// in flight at an update used one of the two newest versions.

#include "runtime/schedules/AsyncOneFOneB.h"
#include "runtime/schedules/Generators.h"
#include "runtime/schedules/ScheduleUtil.h"

namespace ps::runtime {

Result<Plan> generatePipeDream2BW(const ScheduleParams& params) {
  const std::string name = "pipedream-2bw";
  PS_TRY(checkBasicParams(name, params));
  if (params.microbatches < params.ranks)
    return sched::constraintError(name, "m >= p (two weight versions suffice only then)",
                                  {{"m", params.microbatches}, {"p", params.ranks}});
  return sched::asyncOneFOneBPlan(name, params, WeightVersioning::DoubleBuffered);
}

}  // namespace ps::runtime
