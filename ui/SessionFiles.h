#pragma once
// Where the app keeps the user's work between starts, and which files it offers to reopen.
// Started without a file, the app works in a scratch session: a trace file in the user's data
// location (QStandardPaths::AppDataLocation), kept across quits and reopened at the next start,
// so no run is lost by quitting (issue 11, defect 1). Open Recent lists only files that still
// exist.

#include <QString>
#include <QStringList>

namespace ps::ui {

// The scratch session's trace file (its folder is created when missing); empty when the data
// location cannot be created.
QString scratchSessionPath();
bool isScratchSession(const QString& path);

// Moves a session file that does not open aside, never deleting it: to
// "<name>.unreadable-YYYYMMDD-HHMMSS.<suffix>" in its folder, with its -wal, -shm and -journal
// (which belong to it). The new path, or empty when it could not be moved.
QString moveAsideUnreadable(const QString& path);

// The recently opened files that still exist, newest first (at most 8).
QStringList recentFiles();
// Puts `path` first in the list (the scratch session is never listed).
void rememberRecentFile(const QString& path);
// Drops `path` (a file that failed to open).
void forgetRecentFile(const QString& path);

}  // namespace ps::ui
