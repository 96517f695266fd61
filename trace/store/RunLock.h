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

class RunLocks {
 public:
  enum class Probe { Held, Free, Unknown };

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

  struct Entry;  // the process-wide descriptors of one file (RunLock.cpp)

 private:
  explicit RunLocks(Entry* entry) : entry_(entry) {}
  void release();
  Entry* entry_ = nullptr;
};

}  // namespace ps::trace
