#pragma once
// Background work as generation-id jobs (DESIGN §7.6), the one tracker behind every piece of
// the app's background work (runs, imports, explore, search, saves, explanations).
// LatestOnly: starting a job cancels the one in flight (it sees its cancel flag) and waits for
// it; the worker hands results to the GUI thread with post(), which runs them through a queued
// call only while the job is still the current one, so a superseded job's result never reaches
// the window.
// KeepAll (saves, explanations): every job started runs, one after another in the order started,
// on one worker thread that stays; none cancels another and every post arrives, so what the
// window showed is recorded in the order it was shown.

#include <QObject>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace ps::ui {

class JobTracker {
 public:
  // What a worker sees of its job. Copyable; safe to use from the worker thread.
  class Job {
   public:
    const std::atomic<bool>* cancelFlag() const { return cancel_.get(); }
    bool cancelled() const { return cancel_->load(std::memory_order_relaxed); }
    // Runs `fn` on the GUI thread if this job is still current by then.
    void post(std::function<void()> fn) const;
    // Like post, and marks the job done first (busy() turns false as `fn` runs). Call it last.
    void finish(std::function<void()> fn) const;

   private:
    friend class JobTracker;
    JobTracker* tracker_ = nullptr;
    std::uint64_t generation_ = 0;
    std::shared_ptr<std::atomic<bool>> cancel_;
  };

  enum class Mode { LatestOnly, KeepAll };

  // `context` (a GUI-thread object that outlives the tracker) receives the queued calls.
  explicit JobTracker(QObject* context, Mode mode = Mode::LatestOnly)
      : context_(context), mode_(mode) {}
  // LatestOnly: cancels and joins the job in flight. KeepAll: runs every job still queued
  // first (dropQueued() before it to skip those not begun).
  ~JobTracker();
  JobTracker(const JobTracker&) = delete;
  JobTracker& operator=(const JobTracker&) = delete;

  // LatestOnly: cancels and joins the job in flight, then runs `work` on a new worker thread.
  // KeepAll: queues `work` behind the jobs already started.
  void start(std::function<void(const Job&)> work);
  // LatestOnly: asks the job in flight to stop; its last post still arrives (reporting the
  // cancellation). KeepAll: nothing (its jobs are never superseded).
  void cancel();
  // LatestOnly: true from start() until the current job's finish() has run on the GUI thread.
  // KeepAll: true while a started job's finish() has not run yet.
  bool busy() const { return mode_ == Mode::KeepAll ? unfinished_ > 0 : busy_; }
  std::uint64_t generation() const { return generation_; }
  // KeepAll: blocks until every job started has run on the worker (their finish() calls are
  // queued to the GUI thread by then); drops jobs not begun when `dropQueued` was called.
  void waitForDone();
  // KeepAll: jobs started but not begun are dropped (closing: what they would compute is no
  // longer wanted). Their finish() never runs.
  void dropQueued();

 private:
  void runQueue();

  QObject* context_;
  Mode mode_;
  std::thread worker_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::uint64_t generation_ = 0;  // GUI thread only
  bool busy_ = false;             // GUI thread only
  int unfinished_ = 0;            // GUI thread only (KeepAll)
  // KeepAll's queue, shared with its worker.
  std::mutex queueMutex_;
  std::condition_variable queueChanged_;
  std::deque<std::function<void()>> queue_;
  bool running_ = false;   // a job is on the worker now
  bool stopping_ = false;  // the destructor asked the worker to end once the queue is empty
};

}  // namespace ps::ui
