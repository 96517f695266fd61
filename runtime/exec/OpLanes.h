#pragma once
// Two lanes (threads) that run one rank's program and take turns on its compute, the way a GPU
// runs a communication stream beside its compute stream (Piper's overlap on the cpu backend).
//
// A lane holds the rank's compute token while it computes and gives it up while it waits for a
// message (OpLanes::Wait, around every transport wait): the other lane then starts the next op of
// the program, if that op may overlap the one waiting. So one micro-batch's all-to-all is in
// flight while the next micro-batch computes, and only one op computes at a time, as on one
// compute stream. Ops start in program order; at most two are in flight. The second only starts
// beside the first when both are F, B, I or W of the same step and of different micro-batches
// (an op never overlaps its own micro-batch's ops, the step's OPT or a step boundary).

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <vector>

#include "runtime/plan/Plan.h"

namespace ps::runtime {

class OpLanes {
 public:
  OpLanes(const std::vector<Action>& program, const std::atomic<bool>& abort)
      : program_(program), abort_(abort) {}

  // Runs runOp(i) for every op i of the program on two lanes (this thread and one more); false
  // once an op returned false (the run ends: no later op starts; ops in flight finish).
  bool run(const std::function<bool(std::size_t)>& runOp);

  // Whether `later` may start while `earlier` is in flight.
  static bool mayOverlap(const Action& earlier, const Action& later);

  // While alive, the calling lane has given up the compute token (no-op outside a lane).
  class Wait {
   public:
    Wait();
    ~Wait();
    Wait(const Wait&) = delete;
    Wait& operator=(const Wait&) = delete;

   private:
    bool released_ = false;
  };

 private:
  void lane(const std::function<bool(std::size_t)>& runOp);
  bool startable(std::size_t i) const;

  const std::vector<Action>& program_;
  const std::atomic<bool>& abort_;
  std::mutex token_;  // held by the lane that computes
  std::condition_variable turn_;
  std::size_t next_ = 0;
  std::vector<std::size_t> inFlight_;
  bool stop_ = false;
};

}  // namespace ps::runtime
