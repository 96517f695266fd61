// The one tracker behind the app's background work (issue 33 §3): LatestOnly supersedes (a
// superseded job's result never arrives), KeepAll runs every job in the order started on one
// worker and delivers every result (the saves of the runs the window showed), and busy() stays
// true until the last finish has run on the GUI thread.

#include <gtest/gtest.h>

#include <QObject>
#include <QTest>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "ui/JobTracker.h"

namespace ps::ui {
namespace {

void waitUntilIdle(const JobTracker& jobs) {
  for (int i = 0; i < 2000 && jobs.busy(); ++i)
    QTest::qWait(5);
}

TEST(JobTracker, KeepAllRunsEveryJobInOrderOnOneThreadAndDeliversEveryResult) {
  QObject context;
  JobTracker jobs(&context, JobTracker::Mode::KeepAll);
  std::vector<int> ran;        // worker side, in the order run
  std::vector<int> delivered;  // GUI side
  std::vector<std::thread::id> threads;
  for (int k = 0; k < 6; ++k)
    jobs.start([&, k](const JobTracker::Job& job) {
      // The first job is slow: a later one must still wait for it (one after another).
      if (k == 0) std::this_thread::sleep_for(std::chrono::milliseconds(30));
      EXPECT_FALSE(job.cancelled());
      ran.push_back(k);
      threads.push_back(std::this_thread::get_id());
      job.finish([&delivered, k] { delivered.push_back(k); });
    });
  EXPECT_TRUE(jobs.busy());
  jobs.waitForDone();
  EXPECT_EQ(ran, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  for (const auto& id : threads)
    EXPECT_EQ(id, threads.front()) << "every job on the one worker";
  EXPECT_TRUE(jobs.busy()) << "the results are not on the GUI thread yet";
  waitUntilIdle(jobs);
  EXPECT_FALSE(jobs.busy());
  EXPECT_EQ(delivered, (std::vector<int>{0, 1, 2, 3, 4, 5})) << "no result is superseded";
}

TEST(JobTracker, KeepAllDropsJobsNotBegunWhenAsked) {
  QObject context;
  JobTracker jobs(&context, JobTracker::Mode::KeepAll);
  std::atomic<bool> release{false};
  std::atomic<int> ran{0};
  jobs.start([&](const JobTracker::Job&) {
    while (!release)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++ran;
  });
  for (int k = 0; k < 3; ++k)
    jobs.start([&](const JobTracker::Job&) { ++ran; });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the first has begun
  jobs.dropQueued();
  release = true;
  jobs.waitForDone();
  EXPECT_EQ(ran, 1) << "the three jobs not begun were dropped";
}

TEST(JobTracker, LatestOnlyCancelsTheJobInFlightAndDropsItsResult) {
  QObject context;
  JobTracker jobs(&context);
  std::vector<int> delivered;
  std::atomic<bool> firstSawCancel{false};
  jobs.start([&](const JobTracker::Job& job) {
    while (!job.cancelled())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    firstSawCancel = true;
    job.finish([&delivered] { delivered.push_back(1); });
  });
  jobs.start(
      [&](const JobTracker::Job& job) { job.finish([&delivered] { delivered.push_back(2); }); });
  EXPECT_TRUE(firstSawCancel) << "start() cancels and joins the job in flight";
  waitUntilIdle(jobs);
  QTest::qWait(20);
  EXPECT_EQ(delivered, (std::vector<int>{2}));
}

}  // namespace
}  // namespace ps::ui
