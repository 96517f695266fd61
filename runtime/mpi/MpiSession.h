#pragma once
// MPI for the process backend (`pipescope-cli run --procs` under `mpirun -np P`): initialised
// once per process, finalised when the session ends. Outside mpirun MPI starts as a singleton
// (world size 1). Only the thread that created the session calls MPI.

#include <string>

#include "trace/Result.h"

namespace ps::runtime::mpi {

class MpiSession {
 public:
  MpiSession();   // MPI_Init_thread (funneled)
  ~MpiSession();  // MPI_Finalize: waits for every process to get there
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

// A collective over MPI_COMM_WORLD: every process passes its own status and gets back the same
// one, the error of the lowest rank that failed (ok when all are).
Status agreeAcrossRanks(const Status& mine);

}  // namespace ps::runtime::mpi
