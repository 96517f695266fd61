#pragma once
// Notices when another process writes the open trace file (a `pipescope-cli sim --db FILE`
// appending a run, a run completing, a run deleted, the file replaced or removed). A cheap poll
// of the file's and its -wal's size and modification time: it works in both of the store's
// journal modes (WAL while a writer runs, rollback at rest), survives the file being replaced
// (a QFileSystemWatcher loses its inotify watch then) and never opens the database; changes
// are coalesced to one `changed()` per tick, so a writer committing every step costs one
// re-listing of the runs per tick, not one per commit.

#include <QDateTime>
#include <QObject>
#include <QString>

class QTimer;

namespace ps::ui {

class TraceFileWatch : public QObject {
  Q_OBJECT
 public:
  static constexpr int kPollMs = 400;

  explicit TraceFileWatch(QObject* parent = nullptr);
  // Watches `path` from now on (what it holds now is the baseline); empty stops watching.
  void setPath(const QString& path);
  QString path() const { return path_; }
  // Takes what the file holds now as seen (after the window's own writes and re-reads).
  void rebase();

 signals:
  // The file or its -wal changed since the last tick, or the file appeared or vanished.
  void changed();

 private:
  struct Signature {
    bool exists = false;
    qint64 size = -1, walSize = -1;
    QDateTime modified, walModified;
    bool operator==(const Signature&) const = default;
  };
  Signature read() const;
  void poll();

  QString path_;
  Signature seen_;
  QTimer* timer_;
};

}  // namespace ps::ui
