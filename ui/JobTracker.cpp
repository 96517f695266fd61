#include "ui/JobTracker.h"

#include <QMetaObject>

namespace ps::ui {

void JobTracker::Job::post(std::function<void()> fn) const {
  JobTracker* tracker = tracker_;
  const std::uint64_t generation = generation_;
  QMetaObject::invokeMethod(
      tracker->context_,
      [tracker, generation, fn = std::move(fn)] {
        if (generation == tracker->generation_) fn();
      },
      Qt::QueuedConnection);
}

void JobTracker::Job::finish(std::function<void()> fn) const {
  JobTracker* tracker = tracker_;
  post([tracker, fn = std::move(fn)] {
    tracker->busy_ = false;
    fn();
  });
}

JobTracker::~JobTracker() {
  cancel();
  if (worker_.joinable()) worker_.join();
}

void JobTracker::cancel() {
  if (cancel_) cancel_->store(true);
}

void JobTracker::start(std::function<void(const Job&)> work) {
  cancel();
  if (worker_.joinable()) worker_.join();
  Job job;
  job.tracker_ = this;
  job.generation_ = ++generation_;
  job.cancel_ = cancel_ = std::make_shared<std::atomic<bool>>(false);
  busy_ = true;
  worker_ = std::thread([job, work = std::move(work)] { work(job); });
}

}  // namespace ps::ui
