#pragma once
// The runs made without a file: the demo, and the scratch session in the user's data location
// that the app reopens when started without a file, so that its runs survive quitting. One that
// does not open is never deleted: moved aside under a dated name, and a new one starts.

#include <QObject>
#include <QString>

class QStatusBar;

namespace ps::ui {

class RunSession;

class ScratchSession : public QObject {
  Q_OBJECT
 public:
  ScratchSession(RunSession& session, QStatusBar* status, QObject* parent = nullptr);

  // Simulates the demo (the 1f1b preset) into `path` and opens it.
  bool openDemo(const QString& path);
  // Reopens the scratch session, or starts it with the demo when it is new.
  bool open();

 private:
  RunSession& session_;
  QStatusBar* status_;
};

}  // namespace ps::ui
