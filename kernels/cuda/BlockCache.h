#pragma once
// CudaDevice's caching allocator as bookkeeping over a small runtime interface, so that its rules
// are tested on the CPU (tests/kernels/cuda/BlockCacheTest.cpp) with a fake runtime; the real one
// is CudaBlockApi in kernels/cuda/CudaBlockApi.cu.
//
// Blocks are cached by exact (rounded) size. release() records an event on the owner's stream
// (from a pool, kept with the free block); take() reuses blocks in that stream's order without
// waiting; takeFor() makes another stream wait on exactly the block's release point.
//
// Contexts (issue 32 §2): a green context may be current on one thread at a time, and takeFor()
// runs on ANOTHER rank's thread (the sender allocating the receive buffer on the receiver). So
// cudaMalloc and cudaFree run in the device's primary context (green contexts share its memory),
// switched to for the call and switched back; the reuse wait is queued from whatever context the
// caller has (a stream may wait on an event of another context); only release(), on the owner's
// thread, records in the work context (an event and its stream must share a context).
//
// Out of memory (issue 32 §6): cudaFree can stall until every kernel on the GPU finishes, NCCL's
// waiting ones included, which deadlocks when their peers are this process's other ranks. With
// live NCCL channels the cache frees nothing and throws DeviceError with the numbers; without,
// it frees the cached blocks once their release points have passed (polled: abortable), and
// tries once more.
//
// Api: using Event, Stream, Context; Context current(); bool setCurrent(Context) (false: refused);
//      bool malloc(void**, size_t) (false: out of memory; throws on any other error);
//      void free(void*) noexcept; bool createEvent(Event*) (in the current context);
//      bool record(Event, Stream); void wait(Stream waiter, Event) (throws);
//      void waitFor(Event) (polled; throws when the run aborts); void destroyEvent(Event) noexcept.

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kernels/ComputeDevice.h"
#include "kernels/cuda/FormatBytes.h"

namespace ps::kernels::cuda {

// Makes `context` current on this thread for the scope and puts back what was current. Never
// throws (release() is noexcept); a refused switch leaves the caller's context in place.
template <typename Api>
class ContextSwitch {
 public:
  ContextSwitch(Api& api, typename Api::Context context) : api_(api) {
    previous_ = api_.current();
    if (!context || previous_ == context) return;
    switched_ = api_.setCurrent(context);
  }
  ~ContextSwitch() {
    if (switched_) api_.setCurrent(previous_);
  }
  ContextSwitch(const ContextSwitch&) = delete;
  ContextSwitch& operator=(const ContextSwitch&) = delete;

 private:
  Api& api_;
  typename Api::Context previous_{};
  bool switched_ = false;
};

template <typename Api>
class BlockCache {
 public:
  using Event = typename Api::Event;
  using Stream = typename Api::Stream;
  using Context = typename Api::Context;

  // `work`: the context of `own` (primary or green); `memory`: the device's primary context.
  // `label` names the device in errors ("CUDA device 0").
  BlockCache(Api api, Context work, Context memory, Stream own, std::string label)
      : api_(std::move(api)), work_(work), memory_(memory), own_(own), label_(std::move(label)) {}
  ~BlockCache() { clear(); }
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  // NCCL communicators are open on this GPU: out of memory then throws instead of freeing.
  void setLiveChannels(bool live) {
    std::lock_guard<std::mutex> lock(mutex_);
    liveChannels_ = live;
  }

  // A block of exactly `bytes` for work on the owner's stream: the newest cached one (warm in
  // caches; stream order makes its release point irrelevant) or a fresh one.
  void* take(std::size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto it = free_.find(bytes);
      if (it != free_.end() && !it->second.empty()) {
        const FreeBlock block = it->second.back();
        it->second.pop_back();
        cachedBytes_ -= bytes;
        recycle(block.released);
        return block.ptr;
      }
    }
    return fresh(bytes);
  }

  // A block of exactly `bytes` to be written by work on `user`, a stream of any thread: a cached
  // one makes `user` wait on its release event (the oldest such block: the earliest point,
  // most likely passed); a fresh one needs no wait. Never makes the work context current.
  void* takeFor(std::size_t bytes, Stream user) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto it = free_.find(bytes);
      if (it != free_.end()) {
        std::vector<FreeBlock>& list = it->second;
        const auto block = std::find_if(list.begin(), list.end(),
                                        [](const FreeBlock& b) { return b.released != Event{}; });
        if (block != list.end()) {
          // Under the lock: the event is not recycled (and re-recorded) before the wait is queued.
          api_.wait(user, block->released);
          void* p = block->ptr;
          recycle(block->released);
          list.erase(block);
          cachedBytes_ -= bytes;
          return p;
        }
      }
    }
    return fresh(bytes);
  }

  // Back to its size's list with an event recorded on the owner's stream now (from the owner's
  // thread, or once no thread runs the owner's work). A pointer not ours is ignored.
  void release(void* ptr) noexcept {
    if (!ptr) return;
    const ContextSwitch<Api> scope(api_, work_);
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = blocks_.find(ptr);
    if (it == blocks_.end()) return;
    Event released{};
    if (!takeEvent(&released)) {
      released = Event{};
    } else if (!api_.record(released, own_)) {
      api_.destroyEvent(released);
      released = Event{};  // the block stays usable in stream order (take only)
    }
    try {
      free_[it->second].push_back({ptr, released});
      cachedBytes_ += it->second;
    } catch (...) {
      // Out of host memory for the list: the block stays held and is freed by clear().
      if (released != Event{}) api_.destroyEvent(released);
    }
  }

  std::size_t reservedBytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return reserved_;
  }
  std::size_t cachedBytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return cachedBytes_;
  }

  // Frees every block and event. The caller has waited for the owner's stream.
  void clear() noexcept {
    const ContextSwitch<Api> scope(api_, memory_);
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& block : blocks_)
      api_.free(block.first);
    for (const auto& entry : free_)
      for (const FreeBlock& block : entry.second)
        if (block.released != Event{}) api_.destroyEvent(block.released);
    for (Event event : idle_)
      api_.destroyEvent(event);
    blocks_.clear();
    free_.clear();
    idle_.clear();
    reserved_ = cachedBytes_ = 0;
  }

 private:
  struct FreeBlock {
    void* ptr = nullptr;
    Event released{};  // empty when recording failed: only take() may hand the block out
  };
  // Idle release events kept beyond this many are destroyed.
  static constexpr std::size_t kMaxIdleEvents = 1024;

  void* fresh(std::size_t bytes) {
    void* p = nullptr;
    if (!mallocInMemoryContext(&p, bytes)) {
      reclaimCached(bytes);
      if (!mallocInMemoryContext(&p, bytes)) throw outOfMemory(bytes, "after freeing the cache");
    }
    std::lock_guard<std::mutex> lock(mutex_);
    blocks_.emplace(p, bytes);
    reserved_ += bytes;
    return p;
  }

  bool mallocInMemoryContext(void** p, std::size_t bytes) {
    const ContextSwitch<Api> scope(api_, memory_);
    return api_.malloc(p, bytes);
  }

  // Gives the cached blocks back to the driver once their release points have passed; with live
  // NCCL channels throws instead (see the header).
  void reclaimCached(std::size_t wanted) {
    std::vector<std::pair<FreeBlock, std::size_t>> taken;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (liveChannels_)
        throw outOfMemoryLocked(
            wanted,
            "; NCCL channels are live, and giving cached blocks back (cudaFree) would wait for "
            "every NCCL kernel on the GPU, which can deadlock: the run stops instead");
      for (auto& [size, list] : free_) {
        auto keep = std::stable_partition(list.begin(), list.end(),
                                          [](const FreeBlock& b) { return b.released == Event{}; });
        for (auto it = keep; it != list.end(); ++it)
          taken.push_back({*it, size});
        list.erase(keep, list.end());
      }
      for (const auto& [block, size] : taken)
        cachedBytes_ -= size;
    }
    std::size_t next = 0;
    try {
      for (; next < taken.size(); ++next)
        api_.waitFor(taken[next].first.released);
    } catch (...) {
      // Aborted: the blocks not yet passed stay held (clear() frees them), their events go.
      for (const auto& entry : taken)
        api_.destroyEvent(entry.first.released);
      throw;
    }
    const ContextSwitch<Api> scope(api_, memory_);
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [block, size] : taken) {
      api_.free(block.ptr);
      blocks_.erase(block.ptr);
      reserved_ -= size;
      recycle(block.released);
    }
  }

  DeviceError outOfMemory(std::size_t bytes, const char* when) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return outOfMemoryLocked(bytes, std::string(" ") + when);
  }
  DeviceError outOfMemoryLocked(std::size_t bytes, const std::string& why) const {
    return DeviceError("cudaMalloc of " + formatBytes(bytes) + " on " + label_ +
                       ": out of memory with " + formatBytes(reserved_) + " reserved (" +
                       formatBytes(cachedBytes_) + " of it cached in free blocks)" + why);
  }

  // The event pool (caller holds mutex_, work context current for a create).
  bool takeEvent(Event* event) {
    if (!idle_.empty()) {
      *event = idle_.back();
      idle_.pop_back();
      return true;
    }
    return api_.createEvent(event);  // only until the pool covers the most blocks free at once
  }
  void recycle(Event event) noexcept {
    if (event == Event{}) return;
    // Re-recording later is safe even while pending: queued waits keep the record they saw.
    if (idle_.size() < kMaxIdleEvents) {
      try {
        idle_.push_back(event);
        return;
      } catch (...) {
      }
    }
    api_.destroyEvent(event);
  }

  Api api_;
  const Context work_;
  const Context memory_;
  const Stream own_;
  const std::string label_;
  mutable std::mutex mutex_;
  std::unordered_map<std::size_t, std::vector<FreeBlock>> free_;  // size → oldest release first
  std::unordered_map<void*, std::size_t> blocks_;                 // every block held → size
  std::vector<Event> idle_;
  std::size_t reserved_ = 0;
  std::size_t cachedBytes_ = 0;
  bool liveChannels_ = false;
};

}  // namespace ps::kernels::cuda
