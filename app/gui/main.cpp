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
#include <optional>

#include "ui/MainWindow.h"

namespace {

int failWith(const QString& message, int code) {
  std::fprintf(stderr, "pipescope: error: %s\n", qPrintable(message));
  return code;
}

// The command line as the window needs it; `error` set when a value is malformed.
struct GuiArgs {
  QString screenshot;  // empty: the interactive app
  QSize size;
  QString compare;
  bool dark = false;
  QStringList files;
  QString error;
  bool headless() const { return !screenshot.isEmpty(); }
};

GuiArgs parseArgs(const QApplication& app) {
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

  GuiArgs args;
  args.screenshot = parser.isSet(screenshot) ? parser.value(screenshot) : QString();
  args.compare = parser.value(compare);
  args.dark = parser.isSet(dark);
  args.files = parser.positionalArguments();
  if (args.headless()) {
    const QStringList wh = parser.value(size).split('x');
    bool okW = false, okH = false;
    if (wh.size() == 2) args.size = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
    if (!okW || !okH || args.size.width() < 320 || args.size.height() < 240)
      args.error = "--size: expected WxH of at least 320x240, got '" + parser.value(size) + "'";
  }
  return args;
}

// --compare A,B on the opened file; an exit code when it cannot be done.
std::optional<int> compareFromArgs(ps::ui::MainWindow& window, const QString& compare) {
  const QStringList ids = compare.split(',');
  bool okA = false, okB = false;
  const qint64 a = ids.size() == 2 ? ids[0].toLongLong(&okA) : 0;
  const qint64 b = ids.size() == 2 ? ids[1].toLongLong(&okB) : 0;
  if (!okA || !okB)
    return failWith("--compare: expected two run ids A,B, got '" + compare + "'", 2);
  if (!window.compareRuns(a, b)) return failWith("--compare: " + window.lastError(), 2);
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("PipeScope");
  QApplication::setWindowIcon(QIcon(":/icons/pipescope.svg"));
  QApplication::setOrganizationName("PipeScope");
  QApplication::setApplicationVersion(PIPESCOPE_VERSION);
  const GuiArgs args = parseArgs(app);
  if (!args.error.isEmpty()) return failWith(args.error, 2);
  const bool headless = args.headless();

  // A screenshot is the same on every machine: it neither reads nor writes the user's settings
  // (window layout, palette, recent files).
  QTemporaryDir settingsDir;
  if (headless)
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
  ps::ui::MainWindow window;
  if (args.dark)
    if (auto* action = window.findChild<QAction*>("darkPaletteAction")) action->setChecked(true);
  QTemporaryDir demoDir;
  if (args.files.isEmpty()) {
    // No file: the scratch session in the user's data location (kept across quits); a screenshot
    // renders a fresh demo instead, so it is the same on every machine.
    const bool opened =
        headless ? window.openDemo(demoDir.filePath("demo.sqlite")) : window.openScratchSession();
    if (!opened) return failWith(window.lastError(), 1);
  } else if (!window.openTrace(args.files.first(), !headless)) {
    if (headless) return failWith(window.lastError(), 2);
    std::fprintf(stderr, "pipescope: error: %s\n", qPrintable(window.lastError()));
  }
  if (headless) {
    window.resize(args.size);
    window.show();
    QApplication::processEvents();
  } else if (window.opensMaximized()) {
    window.showMaximized();
  } else {
    window.show();
  }
  if (!args.compare.isEmpty())
    if (auto code = compareFromArgs(window, args.compare)) return *code;
  if (headless) {
    for (int i = 0; i < 3; ++i)
      QApplication::processEvents();
    if (!window.grab().save(args.screenshot))
      return failWith(args.screenshot + ": cannot write the screenshot", 2);
    return 0;
  }
  return app.exec();
}
