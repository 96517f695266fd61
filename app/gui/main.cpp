// pipescope [FILE] and pipescope --screenshot OUT.png [--size WxH] [--compare A,B] [FILE]
// (DESIGN §5).

#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QPixmap>
#include <QSettings>
#include <QTemporaryDir>

#include <cstdio>

#include "ui/MainWindow.h"

namespace {

int failWith(const QString& message, int code) {
  std::fprintf(stderr, "pipescope: error: %s\n", qPrintable(message));
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("PipeScope");
  QApplication::setWindowIcon(QIcon(":/icons/pipescope.svg"));
  QApplication::setOrganizationName("PipeScope");
  QApplication::setApplicationVersion(PIPESCOPE_VERSION);

  QCommandLineParser parser;
  parser.setApplicationDescription("Profiler and schedule explorer for pipeline-parallel training");
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption screenshot("screenshot", "Render the main window to OUT.png and exit.",
                                "OUT.png");
  parser.addOption(screenshot);
  QCommandLineOption size("size", "Window size for --screenshot (default 1400x820).", "WxH",
                          "1400x820");
  parser.addOption(size);
  QCommandLineOption compare("compare", "Compare runs A and B of FILE (ids).", "A,B");
  parser.addOption(compare);
  QCommandLineOption dark("dark", "Use the dark palette.");
  parser.addOption(dark);
  parser.addPositionalArgument("FILE", "Trace file to open (.sqlite)", "[FILE]");
  parser.process(app);

  const bool headless = parser.isSet(screenshot);
  QSize windowSize;
  if (headless) {
    const QStringList wh = parser.value(size).split('x');
    bool okW = false, okH = false;
    if (wh.size() == 2) windowSize = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
    if (!okW || !okH || windowSize.width() < 320 || windowSize.height() < 240)
      return failWith("--size: expected WxH of at least 320x240, got '" + parser.value(size) + "'",
                      2);
  }
  // A screenshot is the same on every machine: it neither reads nor writes the user's settings
  // (window layout, palette, recent files).
  QTemporaryDir settingsDir;
  if (headless)
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
  ps::ui::MainWindow window;
  if (parser.isSet(dark))
    if (auto* action = window.findChild<QAction*>("darkPaletteAction")) action->setChecked(true);
  const QStringList files = parser.positionalArguments();
  QTemporaryDir demoDir;
  if (files.isEmpty()) {
    // No file: the scratch session in the user's data location (kept across quits); a screenshot
    // renders a fresh demo instead, so it is the same on every machine.
    const bool opened =
        headless ? window.openDemo(demoDir.filePath("demo.sqlite")) : window.openScratchSession();
    if (!opened) return failWith(window.lastError(), 1);
  } else if (!window.openTrace(files.first(), !headless)) {
    if (headless) return failWith(window.lastError(), 2);
    std::fprintf(stderr, "pipescope: error: %s\n", qPrintable(window.lastError()));
  }
  if (headless) {
    window.resize(windowSize);
    window.show();
    QApplication::processEvents();
  } else if (window.opensMaximized()) {
    window.showMaximized();
  } else {
    window.show();
  }
  if (parser.isSet(compare)) {
    const QStringList ids = parser.value(compare).split(',');
    bool okA = false, okB = false;
    const qint64 a = ids.size() == 2 ? ids[0].toLongLong(&okA) : 0;
    const qint64 b = ids.size() == 2 ? ids[1].toLongLong(&okB) : 0;
    if (!okA || !okB)
      return failWith("--compare: expected two run ids A,B, got '" + parser.value(compare) + "'",
                      2);
    if (!window.compareRuns(a, b)) return failWith("--compare: " + window.lastError(), 2);
  }
  if (headless) {
    for (int i = 0; i < 3; ++i)
      QApplication::processEvents();
    const QString out = parser.value(screenshot);
    if (!window.grab().save(out)) return failWith(out + ": cannot write the screenshot", 2);
    return 0;
  }
  return app.exec();
}
