// CudaDevice's caching allocator rules (kernels/cuda/BlockCache.h, issue 32 §2 and §6) on a fake
// runtime that keeps each thread's current context: a block taken for another rank's stream never
// makes the owner's green context current on the taker's thread (cudaMalloc runs in the primary
// context, the reuse wait in the caller's); out of memory with live NCCL channels frees nothing and
// names the numbers; without, cached blocks are freed once their release points passed.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kernels/cuda/BlockCache.h"

namespace ps::kernels::cuda {
namespace {

constexpr int kPrimary = 1, kGreen = 2, kSenderGreen = 3;
constexpr int kOwnStream = 10, kSenderStream = 11;

struct CacheFakeRuntime {
  std::mutex mutex;
  std::map<std::thread::id, int> current;     // thread → current context (0: none)
  std::set<int> green{kGreen, kSenderGreen};  // contexts one thread at a time may hold
  int ownershipViolations = 0;                // a green context current on two threads
  std::vector<int> mallocContexts;            // the context each cudaMalloc ran in
  std::map<int, int> eventContext;            // event → the context it was made in
  std::vector<std::pair<int, int>> waits;     // (stream, event)
  int recordsOutsideEventContext = 0;
  std::size_t freeBytes = 1 << 20;             // what cudaMalloc may still hand out
  std::map<std::uintptr_t, std::size_t> live;  // device blocks
  std::uintptr_t nextPtr = 0x1000;
  int nextEvent = 100;
  int frees = 0;
  std::set<int> eventsWaitedFor;
  bool abortWaits = false;
};

struct CacheFakeApi {
  using Event = int;
  using Stream = int;
  using Context = int;
  CacheFakeRuntime* rt;

  Context current() {
    std::lock_guard lock(rt->mutex);
    return rt->current[std::this_thread::get_id()];
  }
  bool setCurrent(Context context) {
    std::lock_guard lock(rt->mutex);
    if (rt->green.count(context))
      for (const auto& [thread, held] : rt->current)
        if (thread != std::this_thread::get_id() && held == context) ++rt->ownershipViolations;
    rt->current[std::this_thread::get_id()] = context;
    return true;
  }
  bool malloc(void** p, std::size_t bytes) {
    const int context = current();
    std::lock_guard lock(rt->mutex);
    rt->mallocContexts.push_back(context);
    if (bytes > rt->freeBytes) return false;
    rt->freeBytes -= bytes;
    *p = reinterpret_cast<void*>(rt->nextPtr);
    rt->live[rt->nextPtr] = bytes;
    rt->nextPtr += bytes;
    return true;
  }
  void free(void* p) noexcept {
    std::lock_guard lock(rt->mutex);
    const auto it = rt->live.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == rt->live.end()) return;
    rt->freeBytes += it->second;
    rt->live.erase(it);
    ++rt->frees;
  }
  bool createEvent(Event* event) {
    const int context = current();
    std::lock_guard lock(rt->mutex);
    *event = rt->nextEvent++;
    rt->eventContext[*event] = context;
    return true;
  }
  bool record(Event event, Stream stream) {
    const int context = current();
    std::lock_guard lock(rt->mutex);
    // An event and its stream must share a context: ours is the green one.
    if (stream == kOwnStream && (context != kGreen || rt->eventContext[event] != kGreen))
      ++rt->recordsOutsideEventContext;
    return true;
  }
  void wait(Stream waiter, Event event) {
    std::lock_guard lock(rt->mutex);
    rt->waits.push_back({waiter, event});
  }
  void waitFor(Event event) {
    std::lock_guard lock(rt->mutex);
    if (rt->abortWaits) throw DeviceError("aborted");
    rt->eventsWaitedFor.insert(event);
  }
  void destroyEvent(Event) noexcept {}
};

using FakeCache = BlockCache<CacheFakeApi>;

FakeCache makeCache(CacheFakeRuntime& rt) {
  return FakeCache(CacheFakeApi{&rt}, kGreen, kPrimary, kOwnStream, "CUDA device 0");
}

// The owner's thread, with its green context current as its kernels keep it.
void onOwnerThread(CacheFakeRuntime& rt, const std::function<void()>& work) {
  std::thread([&] {
    CacheFakeApi{&rt}.setCurrent(kGreen);
    work();
    CacheFakeApi{&rt}.setCurrent(0);  // a thread that ends holds no context
  }).join();
}

TEST(BlockCache, TakingForAnotherRanksStreamNeverMakesTheGreenContextCurrentThere) {
  CacheFakeRuntime rt;
  FakeCache cache = makeCache(rt);
  void* block = nullptr;
  onOwnerThread(rt, [&] { block = cache.take(4096); });
  onOwnerThread(rt, [&] { cache.release(block); });

  // The receiver's thread keeps its green context current while the sender, on its own thread
  // and in its own green context, takes a receive buffer on the receiver's device.
  std::promise<void> senderDone;
  std::promise<void> receiverReady;
  std::thread receiver([&] {
    CacheFakeApi{&rt}.setCurrent(kGreen);
    receiverReady.set_value();
    senderDone.get_future().wait();
    CacheFakeApi{&rt}.setCurrent(0);
  });
  receiverReady.get_future().wait();
  int senderContextAfter = -1;
  void* reused = nullptr;
  void* fresh = nullptr;
  std::thread sender([&] {
    CacheFakeApi{&rt}.setCurrent(kSenderGreen);
    reused = cache.takeFor(4096, kSenderStream);  // a cached block: a wait, no switch
    fresh = cache.takeFor(8192, kSenderStream);   // a new one: cudaMalloc in the primary context
    senderContextAfter = CacheFakeApi{&rt}.current();
    CacheFakeApi{&rt}.setCurrent(0);
  });
  sender.join();
  senderDone.set_value();
  receiver.join();

  EXPECT_EQ(reused, block);
  EXPECT_NE(fresh, nullptr);
  EXPECT_EQ(rt.ownershipViolations, 0);
  EXPECT_EQ(senderContextAfter, kSenderGreen) << "the sender's own context is put back";
  EXPECT_EQ(rt.mallocContexts, (std::vector<int>{kPrimary, kPrimary}));
  ASSERT_EQ(rt.waits.size(), 1u);
  EXPECT_EQ(rt.waits[0].first, kSenderStream);
  EXPECT_EQ(rt.recordsOutsideEventContext, 0);
}

TEST(BlockCache, ReleaseRecordsInTheWorkContextAndPutsTheCallersBack) {
  CacheFakeRuntime rt;
  FakeCache cache = makeCache(rt);
  void* block = nullptr;
  onOwnerThread(rt, [&] { block = cache.take(256); });
  int after = -1;
  std::thread main([&] {  // e.g. the main thread freeing a stage after the ranks joined
    CacheFakeApi{&rt}.setCurrent(kPrimary);
    cache.release(block);
    after = CacheFakeApi{&rt}.current();
    CacheFakeApi{&rt}.setCurrent(0);
  });
  main.join();
  EXPECT_EQ(rt.recordsOutsideEventContext, 0);
  EXPECT_EQ(after, kPrimary);
  EXPECT_EQ(cache.cachedBytes(), 256u);
}

TEST(BlockCache, OutOfMemoryWithLiveChannelsFreesNothingAndSaysWhy) {
  CacheFakeRuntime rt;
  rt.freeBytes = 3 << 10;
  FakeCache cache = makeCache(rt);
  onOwnerThread(rt, [&] {
    void* a = cache.take(2 << 10);
    cache.release(a);  // 2 KiB cached, 1 KiB left on the device
    cache.setLiveChannels(true);
    try {
      cache.take(3 << 10);
      ADD_FAILURE() << "expected an out-of-memory error";
    } catch (const DeviceError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("cudaMalloc of 3.0 KiB on CUDA device 0"), std::string::npos)
          << message;
      EXPECT_NE(message.find("2.0 KiB reserved (2.0 KiB of it cached"), std::string::npos)
          << message;
      EXPECT_NE(message.find("NCCL channels are live"), std::string::npos) << message;
    }
  });
  EXPECT_EQ(rt.frees, 0) << "cudaFree may wait for every NCCL kernel on the GPU";
  EXPECT_TRUE(rt.eventsWaitedFor.empty());
  EXPECT_EQ(cache.reservedBytes(), 2u << 10);
}

TEST(BlockCache, OutOfMemoryWithoutChannelsFreesPassedBlocksAndRetries) {
  CacheFakeRuntime rt;
  rt.freeBytes = 4 << 10;
  FakeCache cache = makeCache(rt);
  onOwnerThread(rt, [&] {
    void* a = cache.take(1 << 10);
    void* b = cache.take(2 << 10);
    cache.release(a);
    cache.release(b);
    void* big = cache.take(3 << 10);  // needs the cache back: 1 KiB free on the device
    EXPECT_NE(big, nullptr);
  });
  EXPECT_EQ(rt.frees, 2);
  EXPECT_EQ(rt.eventsWaitedFor.size(), 2u) << "each block's release point is waited for";
  EXPECT_EQ(cache.reservedBytes(), 3u << 10);
  EXPECT_EQ(cache.cachedBytes(), 0u);
}

TEST(BlockCache, AnAbortWhileReclaimingFreesNothingAndPropagates) {
  CacheFakeRuntime rt;
  rt.freeBytes = 2 << 10;
  FakeCache cache = makeCache(rt);
  onOwnerThread(rt, [&] {
    cache.release(cache.take(1 << 10));
    rt.abortWaits = true;
    EXPECT_THROW(cache.take(2 << 10), DeviceError);
  });
  EXPECT_EQ(rt.frees, 0);
  EXPECT_EQ(cache.reservedBytes(), 1u << 10);
  cache.clear();
  EXPECT_EQ(rt.frees, 1) << "clear() still gives every held block back";
}

}  // namespace
}  // namespace ps::kernels::cuda
