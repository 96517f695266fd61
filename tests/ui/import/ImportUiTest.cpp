// File → Import in the app: the dialog guesses the format, the import runs on a worker thread
// and adds a run whose bubble is measured like the app's own runs.

#include <gtest/gtest.h>

#include <QComboBox>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressDialog>
#include <QTest>

#include <cstdlib>

#include "tests/common/TestUtil.h"
#include "ui/MainWindow.h"
#include "ui/import/ImportDialog.h"
#include "ui/import/ImportRequest.h"

namespace ps::ui {
namespace {

// GPipe, p = 2, m = 2, F = 10 µs, B = 20 µs, as GPU annotations named like torch pipelining.
// Span 90 µs, each rank busy 60 µs: bubble 1/3 = (p-1)/(m+p-1).
std::string kinetoRank(int rank) {
  struct Op {
    const char* kind;
    int mb;
    int start, dur;
  };
  const std::vector<Op> ops =
      rank == 0
          ? std::vector<Op>{{"F", 0, 0, 10}, {"F", 1, 10, 10}, {"B", 0, 50, 20}, {"B", 1, 70, 20}}
          : std::vector<Op>{{"F", 0, 10, 10}, {"F", 1, 20, 10}, {"B", 0, 30, 20}, {"B", 1, 50, 20}};
  std::string json = "{\"distributedInfo\":{\"rank\":" + std::to_string(rank) +
                     ",\"world_size\":2},\"traceEvents\":[";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (i) json += ',';
    json += "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"PP:" + std::to_string(rank) +
            ops[i].kind + std::to_string(ops[i].mb) +
            "\",\"pid\":0,\"tid\":7,\"ts\":" + std::to_string(1'000'000 + ops[i].start) +
            ",\"dur\":" + std::to_string(ops[i].dur) + "}";
  }
  json += "]}";
  return json;
}

// Both ranks written into `dir`, as one kineto import.
ImportRequest twoKinetoRanks(const test::TempDir& dir) {
  ImportRequest request;
  request.format = "kineto";
  for (int r = 0; r < 2; ++r) {
    const std::string path = dir.file("rank" + std::to_string(r) + ".json");
    test::writeFile(path, kinetoRank(r));
    request.files << QString::fromStdString(path);
  }
  return request;
}

TEST(ImportUi, DialogGuessesTheFormatFromTheFiles) {
  test::TempDir dir;
  const std::string json = dir.file("rank0.json"), csv = dir.file("s.csv");
  test::writeFile(json, kinetoRank(0));
  test::writeFile(csv, "0F0,0B0\n");
  ImportDialog dialog;
  dialog.setFiles({QString::fromStdString(json)});
  EXPECT_EQ(dialog.findChild<QComboBox*>("importFormat")->currentData().toString(), "kineto");
  EXPECT_EQ(dialog.request().files, QStringList{QString::fromStdString(json)});
  // PIPESCOPE_UI_SHOTS=DIR saves what the dialog looks like, for people reviewing the UI.
  if (const char* shots = std::getenv("PIPESCOPE_UI_SHOTS"))
    dialog.grab().save(QString(shots) + "/import-dialog.png");
  dialog.setFiles({QString::fromStdString(csv)});
  EXPECT_EQ(dialog.request().format, "torch-csv");
  EXPECT_EQ(guessImportFormat({QString::fromStdString(json), QString::fromStdString(csv)}), "");
}

TEST(ImportUi, ImportingTwoKinetoRanksAddsARunWithTheirBubble) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("live.sqlite"))));
  auto* history = w.findChild<QListWidget*>("runHistory");
  const int before = history->count();
  const ImportRequest request = twoKinetoRanks(dir);
  w.importTraces(request, false);
  for (int i = 0; i < 250 && w.importBusy(); ++i)
    QTest::qWait(20);
  QTest::qWait(20);
  ASSERT_EQ(history->count(), before + 1) << w.lastError().toStdString();
  EXPECT_TRUE(w.lastImportSummary().contains("2 rank(s)")) << w.lastImportSummary().toStdString();
  EXPECT_TRUE(w.lastImportSummary().contains("F=4 B=4")) << w.lastImportSummary().toStdString();
  auto* summary = w.findChild<QPlainTextEdit*>("importSummary");
  ASSERT_NE(summary, nullptr);
  if (const char* shots = std::getenv("PIPESCOPE_UI_SHOTS")) {
    summary->window()->grab().save(QString(shots) + "/import-summary.png");
    w.grab().save(QString(shots) + "/import-window.png");
  }
  auto* report = w.findChild<QPlainTextEdit*>("reportView");
  EXPECT_TRUE(report->toPlainText().contains("bubble ratio   33.33 %"))
      << report->toPlainText().toStdString();
}

// Seen driving the app: an import quicker than the progress dialog's minimum duration ended, and
// then the dialog popped up stuck at its last value (hide() had left its show timer running).
TEST(ImportUi, AQuickImportLeavesNoProgressDialogBehind) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("live.sqlite"))));
  const ImportRequest request = twoKinetoRanks(dir);
  for (const bool dialogs : {true, false}) {
    w.importTraces(request, dialogs);
    for (int i = 0; i < 250 && w.importBusy(); ++i)
      QTest::qWait(20);
    QTest::qWait(800);  // past the minimum duration (300 ms)
    auto* progress = w.findChild<QProgressDialog*>("importProgress");
    ASSERT_NE(progress, nullptr);
    EXPECT_FALSE(progress->isVisible())
        << "dialogs " << dialogs << ": at " << progress->value() << " %";
    for (auto* box : w.findChildren<QDialog*>())  // the non-modal summary
      if (box != progress) box->close();
  }
}

TEST(ImportUi, ABadFileReportsItsNameAndAddsNothing) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("live.sqlite"))));
  auto* history = w.findChild<QListWidget*>("runHistory");
  const int before = history->count();
  const std::string bad = dir.file("rank0.json");
  test::writeFile(bad, "{\"traceEvents\":[{\"ph\":\"X\",");
  ImportRequest request;
  request.format = "kineto";
  request.files << QString::fromStdString(bad);
  w.importTraces(request, false);
  for (int i = 0; i < 250 && w.importBusy(); ++i)
    QTest::qWait(20);
  QTest::qWait(20);
  EXPECT_EQ(history->count(), before);
  EXPECT_TRUE(w.lastError().contains(QString::fromStdString(bad))) << w.lastError().toStdString();
}

}  // namespace
}  // namespace ps::ui

#include "ui/LinkMatrixView.h"

namespace ps::ui {
namespace {

TEST(LinkMatrix, ShadesEachSendingPairAndFindsItsCell) {
  LinkMatrixView view;
  view.resize(280, 280);
  // Rank 0 sends 4 MiB to rank 1, rank 1 sends 1 MiB back; nothing else.
  view.setLinks({{0, 1, 4 << 20, 500, 2}, {1, 0, 1 << 20, 250, 1}}, 3, 1000);
  QImage image(view.size(), QImage::Format_ARGB32);
  view.render(&image);
  if (const char* shots = std::getenv("PIPESCOPE_UI_SHOTS"))
    image.save(QString(shots) + "/link-matrix.png");
  const auto [s, d] = view.cellAt(QPoint(28 + 84 + 5, 28 + 5));  // row 0, column 1
  EXPECT_EQ(s, 0);
  EXPECT_EQ(d, 1);
  // The busier link is darker (more opaque blue) than the lighter one; empty pairs are not blue.
  const QColor heavy = image.pixelColor(28 + 84 + 3, 28 + 3);
  const QColor light = image.pixelColor(28 + 3, 28 + 84 + 3);
  const QColor empty = image.pixelColor(28 + 2 * 84 + 3, 28 + 3);
  EXPECT_LT(heavy.red(), light.red());
  EXPECT_LT(light.red(), empty.red());
  EXPECT_EQ(view.cellAt(QPoint(2, 2)).first, -1);
}

}  // namespace
}  // namespace ps::ui

#include "ui/MemoryView.h"

namespace ps::ui {
namespace {

TEST(MemoryViewPeaks, BarsShowPeakAgainstCapacityAndFlagOverflow) {
  auto run = std::make_shared<trace::RunTrace>();
  run->ranks.resize(3);
  const std::int64_t peaks[] = {30, 50, 120};
  for (int r = 0; r < 3; ++r) {
    run->ranks[r].info.rank = r;
    run->ranks[r].memory.t = {0, 10, 20};
    run->ranks[r].memory.bytes = {5, peaks[r], 0};
  }
  run->ranks[0].info.memory_capacity_bytes = 100;
  run->ranks[2].info.memory_capacity_bytes = 100;
  MemoryView view;
  view.resize(600, 160);
  view.setRun(run);
  view.setVisibleRange({0, 30});
  EXPECT_DOUBLE_EQ(view.peakShare(0), 0.3);
  EXPECT_DOUBLE_EQ(view.peakShare(1), 50.0 / 120.0);  // no capacity: against the run's peak
  EXPECT_DOUBLE_EQ(view.peakShare(2), 1.2);
  QImage image(view.size(), QImage::Format_ARGB32);
  view.render(&image);
  int red = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < 100; ++x)
      if (image.pixelColor(x, y) == QColor(0xD5, 0x2A, 0x2A)) ++red;
  EXPECT_GT(red, 20);  // rank 2's bar, over capacity
}

}  // namespace
}  // namespace ps::ui
