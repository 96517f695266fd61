#include "ui/SessionFiles.h"

#include <QDir>
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
