#include "trace/store/RunLock.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <utility>

namespace ps::trace {

// One per file (device, inode) per process. `lockFd` holds this process's run locks; `probeFd`
// is a second open file description, so that a probe also sees the locks taken through `lockFd`.
struct RunLocks::Entry {
  std::pair<dev_t, ino_t> key;
  int lockFd = -1;
  int probeFd = -1;
  int refs = 0;
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

struct flock byteLock(short type, std::int64_t runId) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = static_cast<off_t>(kRunLockBase + runId);
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
    delete entry_;
  }
  entry_ = nullptr;
}

bool RunLocks::lock(std::int64_t runId) const {
  if (!entry_) return false;
  struct flock fl = byteLock(F_RDLCK, runId);
  return fcntl(entry_->lockFd, F_OFD_SETLK, &fl) == 0;
}

void RunLocks::unlock(std::int64_t runId) const {
  if (!entry_) return;
  struct flock fl = byteLock(F_UNLCK, runId);
  (void)fcntl(entry_->lockFd, F_OFD_SETLK, &fl);
}

RunLocks::Probe RunLocks::probe(std::int64_t runId) const {
  if (!entry_ || entry_->probeFd < 0) return Probe::Unknown;
  // Asking for a write lock reports any holder of the writer's read lock.
  struct flock fl = byteLock(F_WRLCK, runId);
  if (fcntl(entry_->probeFd, F_OFD_GETLK, &fl) != 0) return Probe::Unknown;
  return fl.l_type == F_UNLCK ? Probe::Free : Probe::Held;
}

}  // namespace ps::trace
