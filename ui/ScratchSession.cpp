#include "ui/ScratchSession.h"

#include <QFileInfo>
#include <QStatusBar>

#include "runtime/run/Presets.h"
#include "runtime/run/RunPlan.h"
#include "ui/RunHistoryPanel.h"
#include "ui/RunLibrary.h"
#include "ui/RunSession.h"
#include "ui/SessionFiles.h"

namespace ps::ui {

ScratchSession::ScratchSession(RunSession& session, QStatusBar* status, QObject* parent)
    : QObject(parent), session_(session), status_(status) {}

bool ScratchSession::openDemo(const QString& path) {
  // The demo is the 1f1b preset (resources/presets/1f1b.json), as `pipescope-cli demo`'s.
  const auto request = runtime::presetRequest(runtime::kDemoPreset);
  if (!request) {
    session_.fail(QString::fromStdString(request.error()), true);
    return false;
  }
  // Milliseconds: run here, so that the window opens on it.
  auto result = runtime::runPlan(*request, {path.toStdString()});
  if (!result || result->status != trace::RunStatus::Complete) {
    session_.fail(QString::fromStdString(!result ? result.error() : result->message), true);
    return false;
  }
  result->store.reset();
  return session_.open(path);
}

bool ScratchSession::open() {
  const QString path = scratchSessionPath();
  if (path.isEmpty()) {
    session_.fail("cannot create the scratch session's folder in the user's data location", true);
    return false;
  }
  if (!QFileInfo::exists(path)) return openDemo(path);
  session_.fail({}, false);
  if (session_.open(path, false)) {
    // A run the loader refused was skipped with its own message; keep that one on screen.
    if (session_.lastError().isEmpty())
      status_->showMessage(QString("scratch session reopened: %1 run(s) from earlier (%2)")
                               .arg(session_.library().history().count())
                               .arg(path),
                           8000);
    return true;
  }
  // It holds the user's runs of earlier sessions (or a newer PipeScope's): never deleted, moved
  // aside under a dated name, and a new session starts.
  const QString why = session_.lastError();
  // Busy is not unreadable: another writer holds it for now, and it keeps its file.
  if (why.contains("locked by another process")) {
    session_.fail(QString("the scratch session %1 is in use (%2); it was left as it is: open it "
                          "again once the other program is done (File → Open scratch session)")
                      .arg(path, why),
                  false);
    status_->showMessage(session_.lastError());
    return false;
  }
  const QString aside = moveAsideUnreadable(path);
  if (aside.isEmpty()) {
    session_.fail(QString("the scratch session %1 does not open (%2) and cannot be moved aside; "
                          "it was left as it is")
                      .arg(path, why),
                  true);
    return false;
  }
  if (!openDemo(path)) return false;
  // Where the runs went first: a status bar cuts a long message at the window's edge.
  session_.fail(
      QString("new scratch session started; the old one did not open and was kept as %1 (%2)")
          .arg(aside, why),
      false);
  status_->showMessage(session_.lastError());
  return true;
}

}  // namespace ps::ui
