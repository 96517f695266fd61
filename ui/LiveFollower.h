#pragma once
// The run on screen while it is being written (issue 16 goal 4): a `pipescope-cli run` or an
// import in another process, or the app's own cpu or cuda run. Each follow() reads, through a
// RunTail, only the steps committed since the last call, in one read transaction of its own (the
// writer never waits for it), and announces the run grown; once the run has ended the tail is
// dropped and the run announced is what a fresh load would give.

#include <QObject>
#include <QString>

#include <memory>

namespace ps::trace {
class RunTail;
}

namespace ps::ui {

struct LoadedRun;

class LiveFollower : public QObject {
  Q_OBJECT
 public:
  explicit LiveFollower(QObject* parent = nullptr);
  ~LiveFollower() override;

  // Reads what `path` committed to run `shown` since the last call (since `shown` was loaded,
  // on the first call for it) and emits grown() with the run as it is now when there is more;
  // false when the run cannot be read (message() says why).
  bool follow(const QString& path, const std::shared_ptr<const LoadedRun>& shown);
  // The run on screen is no longer one to follow.
  void stop();
  bool following() const { return tail_ != nullptr; }

 signals:
  void grown(const std::shared_ptr<const LoadedRun>& run);
  void message(const QString& text, int timeoutMs);

 private:
  std::unique_ptr<trace::RunTail> tail_;
};

}  // namespace ps::ui
