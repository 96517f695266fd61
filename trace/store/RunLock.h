#pragma once
// Tells a live writer's 'running' run from one whose writer was killed: while a run is being
// written its writer holds a Linux open-file-description lock on one byte of the database file,
// at kRunLockBase + run id — far beyond the bytes SQLite locks, so the two never meet. A writer
// opening the file probes each running run's byte; nobody holding it means the writer is gone.
//
// OFD locks, unlike classic POSIX locks, belong to an open file description and survive other
// descriptors of the file being closed. But closing *our* descriptor would still drop SQLite's
// classic POSIX locks on the file (they belong to the process and the inode), so the descriptors
// are shared per file and closed only once no TraceStore of this process (read-only ones
// included) has the file open.

#include <cstdint>
#include <string>

namespace ps::trace {

inline constexpr std::int64_t kRunLockBase = std::int64_t{1} << 40;
// Below every run's byte (run ids start at 1).
inline constexpr std::int64_t kCloseLockByte = kRunLockBase - 1;

class RunLocks {
 public:
  enum class Probe { Held, Free, Unknown };
  struct Entry;  // the process-wide descriptors of one file (RunLock.cpp)

  // Descriptors for the existing file at `path`. Take it right after opening the SQLite connection
  // (before its first statement) and release it after closing that connection. An invalid handle
  // when the file cannot be opened: locking and probing then do nothing.
  static RunLocks acquire(const std::string& path);

  RunLocks() = default;
  RunLocks(const RunLocks& other);
  RunLocks& operator=(const RunLocks& other);
  RunLocks(RunLocks&& other) noexcept;
  RunLocks& operator=(RunLocks&& other) noexcept;
  ~RunLocks();

  bool valid() const { return entry_ != nullptr; }
  // Takes / releases run `runId`'s byte. Lock returns false when the file system refuses.
  bool lock(std::int64_t runId) const;
  void unlock(std::int64_t runId) const;
  // Whether any writer (this process's included) holds run `runId`'s byte.
  Probe probe(std::int64_t runId) const;

  // One connection to the file at a time may be closing. The last connection to close a WAL-mode
  // file checkpoints it and deletes its -wal and -shm, but only if it finds no other connection
  // open: two closing at the same moment each see the other and both leave the -wal behind. A
  // turn serialises closes within this process (a mutex per file) and, when `acrossProcesses`
  // and the file may be written, between processes (an OFD write lock on kCloseLockByte, waited
  // for at most ~2 s so that a stopped process cannot hang our exit).
  class CloseTurn {
   public:
    CloseTurn() = default;
    CloseTurn(CloseTurn&& other) noexcept;
    CloseTurn& operator=(CloseTurn&&) = delete;
    ~CloseTurn();

   private:
    friend class RunLocks;
    Entry* entry_ = nullptr;
    bool fileLocked_ = false;
  };
  CloseTurn closeTurn(bool acrossProcesses) const;

 private:
  explicit RunLocks(Entry* entry) : entry_(entry) {}
  void release();
  Entry* entry_ = nullptr;
};

}  // namespace ps::trace
