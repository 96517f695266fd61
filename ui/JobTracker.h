#pragma once
// Background work as generation-id jobs (DESIGN §7.6), the one tracker behind runs and imports:
// starting a job cancels the one in flight (it sees its cancel flag) and waits for it; the
// worker hands results to the GUI thread with post(), which runs them through a queued call only
// while the job is still the current one, so a superseded job's result never reaches the window.

#include <QObject>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
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

  // `context` (a GUI-thread object that outlives the tracker) receives the queued calls.
  explicit JobTracker(QObject* context) : context_(context) {}
  ~JobTracker();
  JobTracker(const JobTracker&) = delete;
  JobTracker& operator=(const JobTracker&) = delete;

  // Cancels and joins the job in flight, then runs `work` on a new worker thread.
  void start(std::function<void(const Job&)> work);
  // Asks the job in flight to stop; its last post still arrives (reporting the cancellation).
  void cancel();
  // True from start() until the current job's finish() has run on the GUI thread.
  bool busy() const { return busy_; }
  std::uint64_t generation() const { return generation_; }

 private:
  QObject* context_;
  std::thread worker_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::uint64_t generation_ = 0;  // GUI thread only
  bool busy_ = false;             // GUI thread only
};

}  // namespace ps::ui
