#include "runtime/exec/OpLanes.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <thread>

namespace ps::runtime {
namespace {

// The lane this thread runs, and its hold on the compute token (none outside a lane).
struct LaneOfThread {
  std::unique_lock<std::mutex>* token = nullptr;
  std::condition_variable* turn = nullptr;
};
thread_local LaneOfThread tlsLane;

bool overlappable(OpKind k) {
  return k == OpKind::F || k == OpKind::B || k == OpKind::I || k == OpKind::W;
}

}  // namespace

bool OpLanes::mayOverlap(const Action& earlier, const Action& later) {
  return overlappable(earlier.kind) && overlappable(later.kind) && earlier.step == later.step &&
         earlier.microbatch != later.microbatch;
}

bool OpLanes::startable(std::size_t i) const {
  // Every op before i has started (program order); those still in flight are waiting, since
  // the caller holds the token.
  if (inFlight_.size() >= 2) return false;
  return std::all_of(inFlight_.begin(), inFlight_.end(),
                     [&](std::size_t j) { return mayOverlap(program_[j], program_[i]); });
}

bool OpLanes::run(const std::function<bool(std::size_t)>& runOp) {
  std::thread second([&] { lane(runOp); });
  lane(runOp);
  second.join();
  return !stop_;
}

void OpLanes::lane(const std::function<bool(std::size_t)>& runOp) {
  std::unique_lock token(token_);
  tlsLane = {&token, &turn_};
  for (;;) {
    // Timed: an abort from another rank sets the flag without waking this lane.
    while (!stop_ && next_ < program_.size() && !startable(next_) && !abort_)
      turn_.wait_for(token, std::chrono::milliseconds(20));
    if (abort_) stop_ = true;
    if (stop_ || next_ >= program_.size()) break;
    const std::size_t i = next_++;
    inFlight_.push_back(i);
    bool ok = false;
    try {
      ok = runOp(i);
    } catch (const std::exception&) {  // runOp reports its own failures; never leave a lane open
    }
    std::erase(inFlight_, i);
    if (!ok) stop_ = true;
    turn_.notify_all();
  }
  tlsLane = {};
  turn_.notify_all();
}

OpLanes::Wait::Wait() {
  if (!tlsLane.token || !tlsLane.token->owns_lock()) return;
  tlsLane.token->unlock();
  tlsLane.turn->notify_all();  // the other lane may start the next op now
  released_ = true;
}

OpLanes::Wait::~Wait() {
  if (released_) tlsLane.token->lock();
}

}  // namespace ps::runtime
