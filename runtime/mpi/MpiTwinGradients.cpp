#include "runtime/mpi/MpiTwinGradients.h"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "runtime/model/StageModel.h"

namespace ps::runtime::mpi {

Status sumTwinGradients(const Plan& plan, MPI_Comm comm, int rank, const RankStages& stages,
                        const std::function<bool(MPI_Request&)>& wait) {
  if (plan.numReplicas() > 2)
    return Error{"--dp " + std::to_string(plan.numReplicas()) +
                 ": MPI processes all-reduce between two replicas (give --dp 2, or run threads "
                 "without --procs)"};
  struct Exchange {
    std::span<float> grads;
    int replica = 0;
    std::vector<float> other;
    MPI_Request recv = MPI_REQUEST_NULL, send = MPI_REQUEST_NULL;
  };
  // By layers: each run of layers a stage copy here shares with a copy of the other replica
  // (one per stage with one cut; --own-cuts may split a stage's layers over several twins).
  std::vector<Exchange> exchanges;
  for (const auto& [id, model] : stages) {
    const auto [replica, stage] = id;
    const int twinReplica = 1 - replica;
    if (twinReplica < 0 || twinReplica >= plan.numReplicas()) continue;
    for (std::size_t t = 0; t < plan.placement[twinReplica].size(); ++t) {
      const StagePlacement& twin = plan.placement[twinReplica][t];
      const int first = std::max(twin.firstLayer, model->firstLayer());
      const int last = std::min(twin.lastLayer, model->lastLayer());
      if (first > last) continue;
      // The floats both copies hold, each run tagged with its first layer (which only this pair
      // of copies shares).
      model->forEachReplicatedRun(first, last, [&](int from, std::size_t begin, std::size_t count) {
        std::span<float> mine = model->gradients().subspan(begin, count);
        if (twin.rank == rank) {
          // Both copies on this process: add in place, once (from replica 0).
          if (replica != 0) return;
          auto other = stages.find({1, static_cast<int>(t)});
          if (other == stages.end()) return;
          float* theirs = other->second->gradients().data() + other->second->layerOffset(from);
          for (std::size_t i = 0; i < mine.size(); ++i)
            mine[i] = theirs[i] = mine[i] + theirs[i];
          return;
        }
        Exchange& e = exchanges.emplace_back();
        e.grads = mine;
        e.replica = replica;
        e.other.resize(mine.size());
        const int n = static_cast<int>(mine.size());
        MPI_Irecv(e.other.data(), n, MPI_FLOAT, twin.rank, from, comm, &e.recv);
        MPI_Isend(e.grads.data(), n, MPI_FLOAT, twin.rank, from, comm, &e.send);
      });
    }
  }
  for (auto& e : exchanges) {
    if (!wait(e.recv) || !wait(e.send)) {
      for (auto& x : exchanges) {
        if (x.recv != MPI_REQUEST_NULL) {
          MPI_Cancel(&x.recv);
          MPI_Request_free(&x.recv);
        }
        if (x.send != MPI_REQUEST_NULL) MPI_Request_free(&x.send);
      }
      return Error{"aborted"};
    }
  }
  for (auto& e : exchanges)
    for (std::size_t i = 0; i < e.grads.size(); ++i)
      e.grads[i] = e.replica == 0 ? e.grads[i] + e.other[i] : e.other[i] + e.grads[i];
  return {};
}

}  // namespace ps::runtime::mpi
