#pragma once
// A pool of CUDA events for per-message ordering (runtime/cuda/CudaTransport.cpp), like the
// allocator's pool of release events (kernels/cuda/CudaBlockApi.cu): creating and destroying
// an event per message cost more host time than a 16 MiB on-device copy (issue 32 §4). An event
// is taken with the number of parties that still use its record (e.g. 2: the sender, which frees
// its tensor once the copy has completed, and the receiver, whose stream waits on it) and goes
// back to the idle list only when each has given it back. Giving back promises that the party
// issues nothing more on this record: a stream wait already queued keeps the record it saw, so
// re-recording the event afterwards is safe (the CUDA contract the allocator also relies on).
//
// No CUDA here: `Api` supplies the event type and create/destroy, so that the bookkeeping is
// tested on the CPU (tests/runtime/cuda/EventPoolTest.cpp). Thread-safe: parties on different
// threads give the same event back.

#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ps::runtime {

// Api: `using Event = ...;` `bool create(Event*)` (false: the driver refused) and
// `void destroy(Event) noexcept`.
template <typename Api>
class EventPool {
 public:
  using Event = typename Api::Event;

  explicit EventPool(Api api) : api_(std::move(api)) {}
  ~EventPool() {
    for (const auto& [event, holders] : held_)
      api_.destroy(event);
    for (Event event : idle_)
      api_.destroy(event);
  }
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;

  // An idle event (creating one only while the pool has none) to be given back `holders` times.
  // Throws std::runtime_error when the driver refuses to create one.
  Event acquire(int holders) {
    std::lock_guard lock(mutex_);
    Event event{};
    if (!idle_.empty()) {
      event = idle_.back();
      idle_.pop_back();
    } else if (!api_.create(&event)) {
      throw std::runtime_error("cudaEventCreate: the driver refused a new event");
    } else {
      ++created_;
    }
    held_.emplace(event, holders);
    return event;
  }

  // One party is done with `event`'s current record; the last one makes the event idle again.
  void release(Event event) {
    std::lock_guard lock(mutex_);
    const auto it = held_.find(event);
    if (it == held_.end()) return;  // not ours (or given back too often): nothing to reuse
    if (--it->second > 0) return;
    held_.erase(it);
    idle_.push_back(event);
  }

  Api& api() { return api_; }
  std::size_t created() const {
    std::lock_guard lock(mutex_);
    return created_;
  }
  std::size_t idle() const {
    std::lock_guard lock(mutex_);
    return idle_.size();
  }

 private:
  Api api_;
  mutable std::mutex mutex_;
  std::vector<Event> idle_;
  std::unordered_map<Event, int> held_;  // event → parties that have not given it back
  std::size_t created_ = 0;
};

}  // namespace ps::runtime
