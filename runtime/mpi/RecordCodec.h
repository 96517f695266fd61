#pragma once
// What a rank process sends rank 0 after each step (MPI backend): the records it handed over,
// already moved onto rank 0's clock, and the step's losses. A flat little-endian-as-host byte
// format: both ends are the same build of pipescope-cli.

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "trace/Result.h"
#include "trace/store/TraceWriter.h"

namespace ps::runtime::mpi {

struct RankRecords {
  int rank = 0;
  bool end = false;                           // the rank has finished its program: nothing follows
  int doneStep = -1;                          // the step this message hands over (−1: none)
  std::map<int, trace::TraceBatch> steps;     // step -> ops and memory samples
  std::map<int, std::vector<double>> losses;  // step -> per-micro-batch losses
};

// `clockOffsetNs` is added to every timestamp (the sender's correction onto rank 0's clock).
std::vector<char> encodeRecords(const RankRecords& records, std::int64_t clockOffsetNs);
Result<RankRecords> decodeRecords(std::span<const char> bytes);

}  // namespace ps::runtime::mpi
