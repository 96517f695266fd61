#include "trace/store/RunLock.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace ps::trace {

// One per file (device, inode) per process. `lockFd` holds this process's run locks; `probeFd`
// is a second open file description, so that a probe also sees the locks taken through `lockFd`.
struct RunLocks::Entry {
  std::pair<dev_t, ino_t> key;
  int lockFd = -1;
  int probeFd = -1;
  int refs = 0;
  std::mutex closing;  // held for a CloseTurn
  int closeFd = -1;    // read-write, opened for the first cross-process turn; under `closing`
};

namespace {

using Key = std::pair<dev_t, ino_t>;

// Reference counts change only under this mutex, and descriptors are opened and closed only under
// it, so a descriptor is never closed while another TraceStore of ours has the file open.
std::mutex& registryMutex() {
  static std::mutex m;
  return m;
}

std::map<Key, RunLocks::Entry*>& registry() {
  static std::map<Key, RunLocks::Entry*> entries;
  return entries;
}

struct flock byteLock(short type, std::int64_t offset) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = static_cast<off_t>(offset);
  fl.l_len = 1;
  fl.l_pid = 0;  // required for OFD locks
  return fl;
}

}  // namespace

RunLocks RunLocks::acquire(const std::string& path) {
  std::lock_guard guard(registryMutex());
  // stat, not open + fstat: closing a probe descriptor of a file that is already open would drop
  // SQLite's locks on it.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return RunLocks();
  auto it = registry().find(Key{st.st_dev, st.st_ino});
  if (it != registry().end()) {
    ++it->second->refs;
    return RunLocks(it->second);
  }
  // Read-only descriptors (run locks are read locks): this works on read-only media too.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return RunLocks();
  auto* entry = new Entry;
  entry->key = Key{st.st_dev, st.st_ino};
  entry->lockFd = fd;
  entry->probeFd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  entry->refs = 1;
  registry().emplace(entry->key, entry);
  return RunLocks(entry);
}

RunLocks::RunLocks(const RunLocks& other) {
  std::lock_guard guard(registryMutex());
  entry_ = other.entry_;
  if (entry_) ++entry_->refs;
}

RunLocks& RunLocks::operator=(const RunLocks& other) {
  if (this != &other) {
    release();
    std::lock_guard guard(registryMutex());
    entry_ = other.entry_;
    if (entry_) ++entry_->refs;
  }
  return *this;
}

RunLocks::RunLocks(RunLocks&& other) noexcept : entry_(std::exchange(other.entry_, nullptr)) {}

RunLocks& RunLocks::operator=(RunLocks&& other) noexcept {
  if (this != &other) {
    release();
    entry_ = std::exchange(other.entry_, nullptr);
  }
  return *this;
}

RunLocks::~RunLocks() {
  release();
}

void RunLocks::release() {
  if (!entry_) return;
  std::lock_guard guard(registryMutex());
  if (--entry_->refs == 0) {
    registry().erase(entry_->key);
    ::close(entry_->lockFd);
    if (entry_->probeFd >= 0) ::close(entry_->probeFd);
    if (entry_->closeFd >= 0) ::close(entry_->closeFd);
    delete entry_;
  }
  entry_ = nullptr;
}

bool RunLocks::lock(std::int64_t runId) const {
  if (!entry_) return false;
  struct flock fl = byteLock(F_RDLCK, kRunLockBase + runId);
  return fcntl(entry_->lockFd, F_OFD_SETLK, &fl) == 0;
}

void RunLocks::unlock(std::int64_t runId) const {
  if (!entry_) return;
  struct flock fl = byteLock(F_UNLCK, kRunLockBase + runId);
  (void)fcntl(entry_->lockFd, F_OFD_SETLK, &fl);
}

RunLocks::Probe RunLocks::probe(std::int64_t runId) const {
  if (!entry_ || entry_->probeFd < 0) return Probe::Unknown;
  // Asking for a write lock reports any holder of the writer's read lock.
  struct flock fl = byteLock(F_WRLCK, kRunLockBase + runId);
  if (fcntl(entry_->probeFd, F_OFD_GETLK, &fl) != 0) return Probe::Unknown;
  return fl.l_type == F_UNLCK ? Probe::Free : Probe::Held;
}

RunLocks::CloseTurn RunLocks::closeTurn(bool acrossProcesses) const {
  CloseTurn turn;
  if (!entry_) return turn;
  entry_->closing.lock();
  turn.entry_ = entry_;
  if (!acrossProcesses) return turn;
  // Opened here, not in acquire(): only writers need it, and a read-only file cannot give it.
  // Through our own descriptor, so that it is the same inode even if the path was replaced.
  if (entry_->closeFd < 0) {
    const std::string self = "/proc/self/fd/" + std::to_string(entry_->lockFd);
    entry_->closeFd = ::open(self.c_str(), O_RDWR | O_CLOEXEC);
  }
  if (entry_->closeFd < 0) return turn;
  struct flock fl = byteLock(F_WRLCK, kCloseLockByte);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    if (fcntl(entry_->closeFd, F_OFD_SETLK, &fl) == 0) {
      turn.fileLocked_ = true;
      break;
    }
    if (errno != EAGAIN && errno != EACCES) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return turn;
}

RunLocks::CloseTurn::CloseTurn(CloseTurn&& other) noexcept
    : entry_(std::exchange(other.entry_, nullptr)),
      fileLocked_(std::exchange(other.fileLocked_, false)) {}

RunLocks::CloseTurn::~CloseTurn() {
  if (!entry_) return;
  if (fileLocked_) {
    struct flock fl = byteLock(F_UNLCK, kCloseLockByte);
    (void)fcntl(entry_->closeFd, F_OFD_SETLK, &fl);
  }
  entry_->closing.unlock();
}

}  // namespace ps::trace
