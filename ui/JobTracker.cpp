#include "ui/JobTracker.h"

#include <QMetaObject>

namespace ps::ui {

void JobTracker::Job::post(std::function<void()> fn) const {
  JobTracker* tracker = tracker_;
  const std::uint64_t generation = generation_;
  QMetaObject::invokeMethod(
      tracker->context_,
      [tracker, generation, fn = std::move(fn)] {
        if (tracker->mode_ == Mode::KeepAll || generation == tracker->generation_) fn();
      },
      Qt::QueuedConnection);
}

void JobTracker::Job::finish(std::function<void()> fn) const {
  JobTracker* tracker = tracker_;
  post([tracker, fn = std::move(fn)] {
    if (tracker->mode_ == Mode::KeepAll)
      --tracker->unfinished_;
    else
      tracker->busy_ = false;
    fn();
  });
}

JobTracker::~JobTracker() {
  if (mode_ == Mode::KeepAll) {
    {
      const std::lock_guard lock(queueMutex_);
      stopping_ = true;
    }
    queueChanged_.notify_all();
  } else {
    cancel();
  }
  if (worker_.joinable()) worker_.join();
}

void JobTracker::cancel() {
  if (cancel_) cancel_->store(true);
}

void JobTracker::start(std::function<void(const Job&)> work) {
  Job job;
  job.tracker_ = this;
  job.generation_ = ++generation_;
  if (mode_ == Mode::KeepAll) {
    // Never cancelled: the flag stays false for the job's tools that take one.
    job.cancel_ = std::make_shared<std::atomic<bool>>(false);
    ++unfinished_;
    {
      const std::lock_guard lock(queueMutex_);
      queue_.push_back([job, work = std::move(work)] { work(job); });
    }
    queueChanged_.notify_all();
    if (!worker_.joinable()) worker_ = std::thread([this] { runQueue(); });
    return;
  }
  cancel();
  if (worker_.joinable()) worker_.join();
  job.cancel_ = cancel_ = std::make_shared<std::atomic<bool>>(false);
  busy_ = true;
  worker_ = std::thread([job, work = std::move(work)] { work(job); });
}

void JobTracker::runQueue() {
  std::unique_lock lock(queueMutex_);
  for (;;) {
    queueChanged_.wait(lock, [this] { return !queue_.empty() || stopping_; });
    if (queue_.empty()) return;  // stopping, nothing left
    std::function<void()> next = std::move(queue_.front());
    queue_.pop_front();
    running_ = true;
    lock.unlock();
    next();
    lock.lock();
    running_ = false;
    queueChanged_.notify_all();
  }
}

void JobTracker::waitForDone() {
  std::unique_lock lock(queueMutex_);
  queueChanged_.wait(lock, [this] { return queue_.empty() && !running_; });
}

void JobTracker::dropQueued() {
  std::size_t dropped = 0;
  {
    const std::lock_guard lock(queueMutex_);
    dropped = queue_.size();
    queue_.clear();
  }
  unfinished_ -= static_cast<int>(dropped);
  queueChanged_.notify_all();
}

}  // namespace ps::ui
