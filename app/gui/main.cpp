// pipescope [FILE] and pipescope --screenshot OUT.png [FILE] (DESIGN §5).

#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QPixmap>
#include <QTemporaryDir>

#include <cstdio>

#include "ui/MainWindow.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("PipeScope");
  QApplication::setOrganizationName("PipeScope");
  QApplication::setApplicationVersion(PIPESCOPE_VERSION);

  QCommandLineParser parser;
  parser.setApplicationDescription("Profiler and schedule explorer for pipeline-parallel training");
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption screenshot("screenshot", "Render the main window to OUT.png and exit.",
                                "OUT.png");
  parser.addOption(screenshot);
  QCommandLineOption dark("dark", "Use the dark palette.");
  parser.addOption(dark);
  parser.addPositionalArgument("FILE", "Trace file to open (.sqlite)", "[FILE]");
  parser.process(app);

  ps::ui::MainWindow window;
  if (parser.isSet(dark))
    if (auto* action = window.findChild<QAction*>("darkPaletteAction")) action->setChecked(true);
  const QStringList files = parser.positionalArguments();
  const bool headless = parser.isSet(screenshot);
  QTemporaryDir demoDir;
  if (files.isEmpty()) {
    // No file: the demo, simulated into a scratch file that goes away with the app.
    if (!window.openDemo(demoDir.filePath("demo.sqlite"))) {
      std::fprintf(stderr, "pipescope: error: %s\n", qPrintable(window.lastError()));
      return 1;
    }
  } else if (!window.openTrace(files.first(), !headless)) {
    std::fprintf(stderr, "pipescope: error: %s\n", qPrintable(window.lastError()));
    if (headless) return 2;
  }
  if (headless) {
    window.resize(1400, 820);
    window.show();
    QApplication::processEvents();
    const QString out = parser.value(screenshot);
    if (!window.grab().save(out)) {
      std::fprintf(stderr, "pipescope: error: %s: cannot write the screenshot\n", qPrintable(out));
      return 2;
    }
    return 0;
  }
  window.show();
  return app.exec();
}
