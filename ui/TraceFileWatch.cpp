#include "ui/TraceFileWatch.h"

#include <QFileInfo>
#include <QTimer>

namespace ps::ui {

TraceFileWatch::TraceFileWatch(QObject* parent) : QObject(parent), timer_(new QTimer(this)) {
  setObjectName("traceFileWatch");
  timer_->setInterval(kPollMs);
  connect(timer_, &QTimer::timeout, this, &TraceFileWatch::poll);
}

void TraceFileWatch::setPath(const QString& path) {
  path_ = path;
  seen_ = read();
  if (path_.isEmpty())
    timer_->stop();
  else
    timer_->start();
}

void TraceFileWatch::rebase() {
  seen_ = read();
}

TraceFileWatch::Signature TraceFileWatch::read() const {
  Signature s;
  if (path_.isEmpty()) return s;
  const QFileInfo file(path_), wal(path_ + "-wal");
  s.exists = file.exists();
  if (s.exists) {
    s.size = file.size();
    s.modified = file.lastModified();
  }
  if (wal.exists()) {
    s.walSize = wal.size();
    s.walModified = wal.lastModified();
  }
  return s;
}

void TraceFileWatch::poll() {
  const Signature now = read();
  if (now == seen_) return;
  seen_ = now;
  emit changed();
}

}  // namespace ps::ui
