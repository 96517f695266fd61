#pragma once
// Which model chunk and which pipeline direction an op belongs to, read from the run's stages
// table. Interleaved and V schedules place several stages on one rank (ranks hold chunks 0, 1,
// ... in stage order); Chimera lists every stage twice, once per replica, the second replica
// running the other way. Ops only carry (rank, stage): the table turns that pair into (chunk,
// replica). The store gives the table back sorted by (stage, rank), which loses which row is which
// replica: then the run's micro-batches tell, each forward chain staying on one replica (the one
// whose first stage runs on the chain's first rank).

#include <cstdint>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/TraceRecords.h"

namespace ps::ui {

class StageChunks {
 public:
  struct Info {
    int chunk = 0;    // position of the stage among its rank's stages of one replica
    int replica = 0;  // 0: the first (down) pipeline, 1: the second (up) one
  };

  StageChunks() = default;
  // From the table alone, replicas in row order (as the simulator writes them).
  explicit StageChunks(const std::vector<trace::StageRecord>& stages);
  // From a loaded run: replicas from its micro-batches' forward chains when stages repeat.
  explicit StageChunks(const trace::RunTrace& run);

  // {0, 0} for a pair not in the table (imported runs, negative stages).
  Info at(int rank, int stage) const;
  int chunksPerRank() const { return chunks_; }
  int replicas() const { return replicas_; }
  // Whether labels need a chunk mark or a direction mark at all.
  bool marksChunks() const { return chunks_ > 1; }
  bool marksDirections() const { return replicas_ > 1; }

 private:
  struct Entry {
    int rank, stage;
    Info info;
  };
  void finish();  // chunks from replicas, then sorted for lookup

  std::vector<Entry> entries_;  // sorted by (rank, stage)
  int chunks_ = 1, replicas_ = 1;
};

}  // namespace ps::ui
