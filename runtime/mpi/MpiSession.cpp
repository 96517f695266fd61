#include "runtime/mpi/MpiSession.h"

#include <mpi.h>

#include <climits>
#include <vector>

namespace ps::runtime::mpi {

MpiSession::MpiSession() {
  int provided = 0;
  // Serialized: a rank that overlaps its all-to-alls (OpLanes) calls MPI from two threads, never
  // at once (MpiTransport locks every call).
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  MPI_Finalize();
}

Status agreeAcrossRanks(const Status& mine) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int candidate = mine ? INT_MAX : rank;
  int first = INT_MAX;
  MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == INT_MAX) return {};
  int length = first == rank ? static_cast<int>(mine.error().size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, first, MPI_COMM_WORLD);
  std::vector<char> text(mine.error().begin(), mine.error().end());
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, first, MPI_COMM_WORLD);
  return Error{std::string(text.begin(), text.end())};
}

}  // namespace ps::runtime::mpi
