#pragma once
// The Plan dock as the More-knob tests need it: a shown main window of `size` on the demo in
// `file`, the dock's More knobs opened. nullptr (the failure reported) when a part is missing.

#include <gtest/gtest.h>

#include <QScrollArea>
#include <QSize>
#include <QString>
#include <QTest>
#include <QToolButton>
#include <string>

#include "ui/MainWindow.h"

namespace ps::ui {

inline QScrollArea* openPlanMore(MainWindow& w, QSize size, const std::string& file) {
  w.resize(size);
  w.show();
  EXPECT_TRUE(w.openDemo(QString::fromStdString(file)));
  auto* plan = w.findChild<QScrollArea*>("planScroll");
  auto* more = w.findChild<QToolButton*>("moreToggle");
  EXPECT_NE(plan, nullptr);
  EXPECT_NE(more, nullptr);
  if (!plan || !more) return nullptr;
  more->click();
  QTest::qWait(50);
  return plan;
}

}  // namespace ps::ui
