#include "ui/SessionFiles.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

namespace ps::ui {
namespace {

constexpr int kMaxRecent = 8;
constexpr const char* kRecentKey = "recentFiles";

QString canonical(const QString& path) {
  const QFileInfo info(path);
  return info.exists() ? info.canonicalFilePath() : info.absoluteFilePath();
}

}  // namespace

QString scratchSessionPath() {
  const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
  if (dir.isEmpty() || !QDir().mkpath(dir)) return {};
  return QDir(dir).filePath("scratch-session.sqlite");
}

bool isScratchSession(const QString& path) {
  const QString scratch = scratchSessionPath();
  return !scratch.isEmpty() && !path.isEmpty() && canonical(path) == canonical(scratch);
}

QString moveAsideUnreadable(const QString& path) {
  const QFileInfo info(path);
  const QString stem =
      info.dir().filePath(info.completeBaseName() + ".unreadable-" +
                          QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss"));
  const QString suffix = info.suffix().isEmpty() ? QString() : "." + info.suffix();
  QString aside = stem + suffix;
  for (int n = 2; QFileInfo::exists(aside) && n < 100; ++n)
    aside = stem + "-" + QString::number(n) + suffix;
  if (!QFile::rename(path, aside)) return {};
  // SQLite finds a file's side files by its name: they move with it.
  for (const char* side : {"-wal", "-shm", "-journal"})
    if (QFileInfo::exists(path + side)) QFile::rename(path + side, aside + side);
  return aside;
}

QStringList recentFiles() {
  QStringList out;
  for (const QString& path : QSettings().value(kRecentKey).toStringList())
    if (QFileInfo(path).isFile() && !out.contains(path)) out << path;
  return out;
}

void rememberRecentFile(const QString& path) {
  if (isScratchSession(path)) return;
  QStringList recent = recentFiles();
  const QString absolute = canonical(path);
  recent.removeAll(absolute);
  recent.prepend(absolute);
  while (recent.size() > kMaxRecent)
    recent.removeLast();
  QSettings().setValue(kRecentKey, recent);
}

void forgetRecentFile(const QString& path) {
  QStringList recent = QSettings().value(kRecentKey).toStringList();
  recent.removeAll(path);
  recent.removeAll(canonical(path));
  QSettings().setValue(kRecentKey, recent);
}

}  // namespace ps::ui
