#pragma once
// The gradient sum between the two processes that hold a replicated stage's copies (--dp 2 over
// MPI processes; MpiTransport::sumReplicaGradients): each sends the other its gradients and both
// add, so both hold g0 + g1 as the threaded backend computes it.

#include <mpi.h>

#include <functional>

#include "runtime/exec/Transport.h"
#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime::mpi {

// Sums the gradients of every stage copy `rank` holds with its twin's over `comm`, run by run of
// the layers both copies hold (tagged by its first layer). `wait` polls a request until it is
// done; false once the run aborts (then the exchange is abandoned: "aborted").
[[nodiscard]] Status sumTwinGradients(const Plan& plan, MPI_Comm comm, int rank,
                                      const RankStages& stages,
                                      const std::function<bool(MPI_Request&)>& wait);

}  // namespace ps::runtime::mpi
