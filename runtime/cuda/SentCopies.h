#pragma once
// The sender's side of one device-to-device message (runtime/cuda/CudaTransport.cpp), written
// against an `Api` so that the runtime calls a steady-state send makes are counted on the CPU
// (tests/runtime/cuda/EventPoolTest.cpp, issue 32 §4). Per message: the transfer stream waits on a
// pooled event recorded on the compute stream (the producing kernels), the caller issues the
// copy, and ONE pooled event recorded after it serves both parties: the receiver's stream waits
// on it, and the sender frees its tensor once it has completed. Before each send the finished
// copies are freed with one query when the newest is done (copies on one stream finish in order).
// Steady state (the previous copy done): query, record, wait, copy, record = 5 runtime calls, no
// event created or destroyed.
//
// Api, beyond EventPool's: `using Stream = ...;` `void record(Event, Stream)`,
// `void wait(Stream waiter, Event)`, `bool done(Event)` (never waits) and `void
// synchronize(Event)`. One sender thread per SentCopies; the receiver gives its hold back to the
// pool.

#include <deque>
#include <utility>

#include "runtime/cuda/EventPool.h"

namespace ps::runtime {

template <typename Api, typename Payload>
class SentCopies {
 public:
  using Event = typename Api::Event;
  using Stream = typename Api::Stream;

  explicit SentCopies(EventPool<Api>& pool) : pool_(pool) {}
  SentCopies(const SentCopies&) = delete;
  SentCopies& operator=(const SentCopies&) = delete;

  // Before the copy: `transfer` waits for what `compute` has queued so far.
  void orderAfter(Stream transfer, Stream compute) {
    const Event produced = pool_.acquire(1);
    pool_.api().record(produced, compute);
    pool_.api().wait(transfer, produced);
    pool_.release(produced);  // the queued wait keeps its record
  }

  // After the copy on `transfer`: the event the receiver waits on (then gives back to the pool);
  // `payload` (the sent tensor) is kept until the copy has completed.
  Event copied(Stream transfer, Payload payload) {
    const Event event = pool_.acquire(2);
    pool_.api().record(event, transfer);
    queue_.push_back({std::move(payload), event});
    return event;
  }

  // Frees the payloads whose copies have completed, never waiting.
  void releaseCompleted() {
    if (queue_.empty()) return;
    if (pool_.api().done(queue_.back().event)) {
      while (!queue_.empty())
        popFront();
      return;
    }
    while (queue_.size() > 1 && pool_.api().done(queue_.front().event))
      popFront();
  }

  // Waits for every copy and frees every payload (at the end of a run).
  void releaseAll() {
    while (!queue_.empty()) {
      pool_.api().synchronize(queue_.front().event);
      popFront();
    }
  }

  std::size_t inFlight() const { return queue_.size(); }

 private:
  struct InFlight {
    Payload payload;
    Event event;
  };
  void popFront() {
    pool_.release(queue_.front().event);
    queue_.pop_front();  // the payload (a tensor) goes back to the sender's allocator
  }

  EventPool<Api>& pool_;
  std::deque<InFlight> queue_;
};

}  // namespace ps::runtime
