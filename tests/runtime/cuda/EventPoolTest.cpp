// The cuda backend's per-message events (runtime/cuda/EventPool.h, SentCopies.h, issue 32 §4),
// on a fake runtime that counts its calls: a steady-state send makes 5 runtime calls (query,
// record, wait, the copy, record) and creates or destroys no event (the old send made 16-20,
// three creates and destroys among them); an event comes back only when sender and receiver are
// both done with it; a sent tensor is freed only once its copy has completed.

#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "runtime/cuda/EventPool.h"
#include "runtime/cuda/SentCopies.h"

namespace ps::runtime {
namespace {

struct PoolFakeRuntime {
  int calls = 0;
  int creates = 0;
  int destroys = 0;
  int nextEvent = 1;
  std::set<int> done;  // events whose latest record has completed
};

struct PoolFakeApi {
  using Event = int;
  using Stream = int;
  PoolFakeRuntime* rt;
  bool create(Event* e) {
    ++rt->calls, ++rt->creates;
    *e = rt->nextEvent++;
    return true;
  }
  void destroy(Event) noexcept { ++rt->destroys; }
  void record(Event e, Stream) {
    ++rt->calls;
    rt->done.erase(e);  // a new record: not completed yet
  }
  void wait(Stream, Event) { ++rt->calls; }
  bool done(Event e) {
    ++rt->calls;
    return rt->done.count(e) > 0;
  }
  void synchronize(Event e) {
    ++rt->calls;
    rt->done.insert(e);
  }
};

using PoolPayload = std::shared_ptr<int>;
constexpr int kPoolCompute = 1, kPoolTransfer = 2;

// One send as CudaTransport::send issues it; returns the event the receiver waits on.
int sendThroughPool(PoolFakeRuntime& rt, SentCopies<PoolFakeApi, PoolPayload>& sender,
                    PoolPayload payload) {
  sender.releaseCompleted();
  sender.orderAfter(kPoolTransfer, kPoolCompute);
  ++rt.calls;  // cudaMemcpyPeerAsync
  return sender.copied(kPoolTransfer, std::move(payload));
}

TEST(EventPool, SteadyStateSendMakesFiveRuntimeCallsAndNoEvents) {
  PoolFakeRuntime rt;
  EventPool<PoolFakeApi> pool(PoolFakeApi{&rt});
  SentCopies<PoolFakeApi, PoolPayload> sender(pool);
  for (int i = 0; i < 3; ++i) {  // warm-up: the pool fills
    const int e = sendThroughPool(rt, sender, std::make_shared<int>(i));
    rt.done.insert(e);  // the copy finishes before the next send
    pool.release(e);    // the receiver's stream waited on it
  }
  const int creates = rt.creates;
  EXPECT_LE(creates, 3);
  for (int i = 0; i < 100; ++i) {
    const int before = rt.calls;
    const int e = sendThroughPool(rt, sender, std::make_shared<int>(i));
    EXPECT_EQ(rt.calls - before, 5) << "send " << i;
    EXPECT_LE(rt.calls - before, 6);
    rt.done.insert(e);
    pool.release(e);
  }
  EXPECT_EQ(rt.creates, creates);
  EXPECT_EQ(rt.destroys, 0);
  EXPECT_EQ(sender.inFlight(), 1u);  // the last send's tensor, until the next send or the end
}

TEST(EventPool, AnEventComesBackOnlyWhenSenderAndReceiverAreDone) {
  PoolFakeRuntime rt;
  EventPool<PoolFakeApi> pool(PoolFakeApi{&rt});
  SentCopies<PoolFakeApi, PoolPayload> sender(pool);
  const int first = sendThroughPool(rt, sender, std::make_shared<int>(0));
  rt.done.insert(first);
  // The copy completed and the sender freed its tensor, but the receiver has not queued its wait:
  // the next message must get another event.
  const int second = sendThroughPool(rt, sender, std::make_shared<int>(1));
  EXPECT_NE(second, first);
  EXPECT_EQ(sender.inFlight(), 1u);
  // Receiver first, copy later: still not reusable.
  pool.release(second);
  const int third = sendThroughPool(rt, sender, std::make_shared<int>(2));
  EXPECT_NE(third, first);
  EXPECT_NE(third, second);
  // Both parties done with `first` (receiver now) and `second` (copy done, freed by the next
  // send): both are reused, and nothing new is created.
  pool.release(first);
  rt.done.insert(second);
  rt.done.insert(third);
  pool.release(third);
  const int creates = rt.creates;
  std::set<int> reused;
  for (int i = 0; i < 2; ++i) {
    const int e = sendThroughPool(rt, sender, std::make_shared<int>(3 + i));
    reused.insert(e);
    rt.done.insert(e);
    pool.release(e);
  }
  EXPECT_EQ(rt.creates, creates);
  EXPECT_TRUE(reused.count(first) || reused.count(second) || reused.count(third));
}

TEST(EventPool, ASentTensorIsFreedOnlyOnceItsCopyHasCompleted) {
  PoolFakeRuntime rt;
  EventPool<PoolFakeApi> pool(PoolFakeApi{&rt});
  SentCopies<PoolFakeApi, PoolPayload> sender(pool);
  std::weak_ptr<int> tensors[3];
  int events[3];
  for (int i = 0; i < 3; ++i) {
    auto t = std::make_shared<int>(i);
    tensors[i] = t;
    events[i] = sendThroughPool(rt, sender, std::move(t));
    pool.release(events[i]);  // receivers waited
  }
  sender.releaseCompleted();  // nothing done: all kept
  for (const auto& t : tensors)
    EXPECT_FALSE(t.expired());
  rt.done.insert(events[0]);  // copies finish in order: the oldest first
  sender.releaseCompleted();
  EXPECT_TRUE(tensors[0].expired());
  EXPECT_FALSE(tensors[1].expired());
  EXPECT_FALSE(tensors[2].expired());
  rt.done.insert(events[1]);
  rt.done.insert(events[2]);
  const int before = rt.calls;
  sender.releaseCompleted();  // the newest done: every older one is, one query
  EXPECT_EQ(rt.calls - before, 1);
  EXPECT_TRUE(tensors[1].expired());
  EXPECT_TRUE(tensors[2].expired());
  EXPECT_EQ(pool.idle(), 3u);  // each send's produced event, re-recorded as its copied one
}

TEST(EventPool, ReleaseAllWaitsAndThePoolDestroysWhatItCreated) {
  PoolFakeRuntime rt;
  {
    EventPool<PoolFakeApi> pool(PoolFakeApi{&rt});
    SentCopies<PoolFakeApi, PoolPayload> sender(pool);
    auto t = std::make_shared<int>(0);
    std::weak_ptr<int> watch = t;
    sendThroughPool(rt, sender, std::move(t));  // the receiver never took it (an aborted run)
    sender.releaseAll();
    EXPECT_TRUE(watch.expired());
    EXPECT_EQ(rt.destroys, 0);
  }
  EXPECT_EQ(rt.destroys, rt.creates);
}

}  // namespace
}  // namespace ps::runtime
