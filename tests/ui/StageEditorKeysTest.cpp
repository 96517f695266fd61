// Issue 34 item 14: the stage editor's keys are written under it (they were only in a tooltip),
// in secondary text that follows the palette, without pushing Run or the editor out of sight at
// a first start at 1280×720.

#include <gtest/gtest.h>

#include <QApplication>
#include <QLabel>
#include <QScrollArea>
#include <QSettings>
#include <QTest>

#include <cmath>

#include "tests/common/TestUtil.h"
#include "ui/DarkPalette.h"
#include "ui/MainWindow.h"
#include "ui/StageEditor.h"

namespace ps::ui {
namespace {

// Lies wholly inside the Plan dock's scroll viewport, shown.
void stageKeysUnscrolled(const MainWindow& w, const QWidget* widget) {
  auto* scroll = w.findChild<QScrollArea*>("planScroll");
  ASSERT_TRUE(widget && scroll);
  EXPECT_TRUE(widget->isVisible()) << widget->objectName().toStdString();
  const QRect inViewport(widget->mapTo(scroll->viewport(), QPoint(0, 0)), widget->size());
  EXPECT_TRUE(scroll->viewport()->rect().contains(inViewport))
      << widget->objectName().toStdString() << " at y " << inViewport.top() << ".."
      << inViewport.bottom() << " of " << scroll->viewport()->height();
}

double stageKeysLuminance(const QColor& c) {
  auto channel = [](double v) {
    return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

double stageKeysContrast(const QColor& a, const QColor& b) {
  const double la = stageKeysLuminance(a), lb = stageKeysLuminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// The caption's text colour as painted: the darkest (light palette) or lightest (dark) pixel.
QColor stageKeysInk(QWidget* caption, bool dark) {
  const QImage image = caption->grab().toImage();
  QColor ink = image.pixelColor(0, 0);
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (dark ? c.lightness() > ink.lightness() : c.lightness() < ink.lightness()) ink = c;
    }
  return ink;
}

TEST(StageEditorKeys, ACaptionUnderTheEditorNamesItsKeysAtAFirstStart) {
  QSettings().remove("mainWindow/geometry");
  QSettings().remove("mainWindow/state");
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("keys.sqlite"))));
  w.resize(1280, 720);
  w.show();
  for (int i = 0; i < 5; ++i)
    QApplication::processEvents();
  auto* caption = w.findChild<QLabel*>("stageEditorKeys");
  auto* editor = w.findChild<StageEditor*>("stageEditor");
  ASSERT_TRUE(caption && editor);
  const QString keys = caption->toolTip();
  for (const char* key : {"←/→", "Shift+←/→", "Enter", "Esc"})
    EXPECT_TRUE(keys.contains(QString::fromUtf8(key))) << keys.toStdString();
  EXPECT_EQ(caption->text(), keys) << "the whole caption fits the dock at 1280×720";
  stageKeysUnscrolled(w, editor);
  stageKeysUnscrolled(w, caption);
  stageKeysUnscrolled(w, w.findChild<QWidget*>("runButton"));
  // Under the editor, one line, small.
  EXPECT_GE(caption->mapTo(&w, QPoint(0, 0)).y(),
            editor->mapTo(&w, QPoint(0, 0)).y() + editor->height());
  EXPECT_LE(caption->height(), 2 * caption->fontMetrics().height());
  EXPECT_LT(caption->font().pointSizeF(), editor->font().pointSizeF());
  // Secondary text, readable on both palettes.
  const QPalette light = w.palette();
  for (const bool dark : {false, true}) {
    w.setPalette(dark ? darkPalette() : light);
    QApplication::processEvents();
    const QColor ink = stageKeysInk(caption, dark);
    const QColor window = caption->palette().color(QPalette::Window);
    const QColor text = caption->palette().color(QPalette::WindowText);
    EXPECT_GE(stageKeysContrast(ink, window), 3.0) << "dark " << dark;
    EXPECT_LT(stageKeysContrast(ink, window), stageKeysContrast(text, window)) << "dark " << dark;
  }
}

}  // namespace
}  // namespace ps::ui
