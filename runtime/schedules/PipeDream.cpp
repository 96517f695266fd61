// PipeDream — D. Narayanan, A. Harlap, A. Phanishayee, V. Seshadri, N. R. Devanur,
// G. R. Ganger, P. B. Gibbons, M. Zaharia: "PipeDream: Generalized Pipeline Parallelism for DNN
// Training", SOSP 2019.
//
// Asynchronous 1F1B: after p-1-r warm-up forwards rank r alternates forward and backward without
// ever flushing the pipeline; every rank updates its stage's weights as soon as its own
// backwards of a step are done (OPT right after the step's last backward; no barrier), and
// weight stashing keeps, for every micro-batch in flight, the weight version its forward used
// (WeightVersioning::Stashed; up to p-r versions on rank r). With m = 1 this is the paper's
// per-minibatch update; larger m accumulates gradients over m micro-batches per step. The plan
// covers `steps` steps. Constraints: none beyond positive sizes (one stage per rank, v ignored).

#include "runtime/schedules/AsyncOneFOneB.h"
#include "runtime/schedules/Generators.h"

namespace ps::runtime {

Result<Plan> generatePipeDream(const ScheduleParams& params) {
  PS_TRY(checkBasicParams("pipedream", params));
  return sched::asyncOneFOneBPlan("pipedream", params, WeightVersioning::Stashed);
}

}  // namespace ps::runtime
