#pragma once
// Follows one run of a trace file while another connection appends to it (a `pipescope-cli run`
// in another process, the app's own worker, an import): each poll reads, in one read
// transaction, only the rows committed since the last poll (by rowid, through the run index) and
// adds them to the run held in memory, so a step shows whole or not at all and following a run
// costs what it grew by, not its size. The file is in WAL mode while a writer runs: the reader
// never blocks the writer's commits, nor they the reader.
//
// What the tail holds equals what loadRun would return at the same commit: the same row checks
// and warnings (RunRows), and rows appended in rowid order then stably sorted by start give the
// order a whole load gives.

#include <cstdint>
#include <memory>
#include <string>

#include "trace/Result.h"
#include "trace/RunTrace.h"

namespace ps::trace {

class RunTail {
 public:
  // Opens `path` read-only and reads run `runId` as committed now.
  static Result<RunTail> open(const std::string& path, std::int64_t runId);
  RunTail(RunTail&&) noexcept;
  RunTail& operator=(RunTail&&) noexcept;
  ~RunTail();

  // Reads what was committed since the last poll. True when the run changed (rows, status,
  // message); an error when it cannot be read (deleted, file replaced): the tail keeps what it had.
  Result<bool> poll();
  // The run as loadRun would return it now (a copy: the tail goes on growing its own).
  RunTrace snapshot() const;
  const RunInfo& info() const;
  std::int64_t runId() const;
  // Ops and memory samples held so far.
  std::int64_t rowsRead() const;

 private:
  struct State;
  explicit RunTail(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

}  // namespace ps::trace
