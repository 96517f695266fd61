// Issue 34 items 9, 10 and 20: the import speaks the dialog's language. The import core's
// messages name CLI flags ("try another --align mode", "--threads-as-ranks"); the app shows them
// with its own controls' labels. A single-process trace with compute on several threads says so
// and offers a one-click reimport with each thread a rank. Long paths keep their file name.

#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QStatusBar>
#include <QTest>

#include <cstdlib>
#include <filesystem>

#include "tests/common/TestUtil.h"
#include "ui/MainWindow.h"
#include "ui/import/ImportDialog.h"
#include "ui/import/ImportRequest.h"
#include "ui/import/ImportSummaryDialog.h"
#include "ui/import/ImportWords.h"

namespace ps::ui {
namespace {

TEST(ImportWords, CliFlagsReadAsTheDialogsControls) {
  EXPECT_EQ(importWords("clock alignment (wall) leaves a residual skew of 5 ms: cross-rank timing "
                        "is unreliable; try another --align mode"),
            "clock alignment (wall) leaves a residual skew of 5 ms: cross-rank timing is "
            "unreliable; try another Clock alignment");
  EXPECT_EQ(importWords("--align wall: rank 1's file has no wall-clock base; use --align "
                        "collective or p2p"),
            "Clock alignment 'Wall clock': rank 1's file has no wall-clock base; use Clock "
            "alignment 'Ends of shared collectives' or 'Send/receive pairs'");
  EXPECT_EQ(importWords("--align p2p: rank 2 has no send/receive; use --align collective or wall"),
            "Clock alignment 'Send/receive pairs': rank 2 has no send/receive; use Clock "
            "alignment 'Ends of shared collectives' or 'Wall clock'");
  EXPECT_EQ(importWords("4 threads of this one process hold compute ops, which overlap on its one "
                        "rank: import with threads as ranks (--threads-as-ranks) to make each "
                        "thread a rank"),
            "4 threads of this one process hold compute ops, which overlap on its one rank: "
            "import again with 'Each thread is a rank' ticked to make each thread a rank");
  EXPECT_EQ(importWords("--threads-as-ranks: torch-csv is a schedule, its ranks are the file's; "
                        "the flag is for profiles"),
            "'Each thread is a rank': torch-csv is a schedule, its ranks are the file's; it is "
            "for profiles");
  EXPECT_EQ(importWords("/t/x.json: cannot tell which rank this file is (no rank in its metadata "
                        "or its name); pass --rank /t/x.json=N"),
            "/t/x.json: cannot tell which rank this file is (no rank in its metadata or its "
            "name); give its rank under Ranks");
  EXPECT_EQ(importWords("ranks clash: a.json and b.json are both rank 0 (metadata, metadata); "
                        "pass --rank FILE=N"),
            "ranks clash: a.json and b.json are both rank 0 (metadata, metadata); give each "
            "file's rank under Ranks");
  EXPECT_EQ(importWords("--rank a.json=-1: not a rank"), "Ranks (-1 for a.json): not a rank");
  EXPECT_EQ(importWords("  rank 0 <- a.json (rank 0 from --rank), clock offset 0 ns"),
            "  rank 0 <- a.json (rank 0 from Ranks), clock offset 0 ns");
  EXPECT_EQ(importWords("--rank: torch-csv is a schedule, its ranks are the file's; --rank is for "
                        "profiles"),
            "Ranks: torch-csv is a schedule, its ranks are the file's; Ranks are for profiles");
  EXPECT_EQ(importWords("note: threads as ranks: not applied, the file's processes are its ranks"),
            "note: 'Each thread is a rank': not applied, the file's processes are its ranks");
  EXPECT_EQ(importWords("no flags -- here"), "no flags -- here");
  EXPECT_EQ(importWords("--not-an-import-flag 3"), "--not-an-import-flag 3");
}

// Every label a message names is one the dialog shows.
TEST(ImportWords, TheLabelsAreTheDialogsOwn) {
  ImportDialog dialog;
  QStringList shown;
  for (auto* label : dialog.findChildren<QLabel*>())
    shown << label->text();
  for (const char* label :
       {importlabels::kAlign, importlabels::kRanks, importlabels::kRules, importlabels::kName})
    EXPECT_TRUE(shown.contains(label)) << label << " not in " << shown.join("|").toStdString();
  EXPECT_TRUE(dialog.findChild<QCheckBox*>("importThreadsAsRanks")
                  ->text()
                  .startsWith(importlabels::kThreadsAsRanks));
  auto* align = dialog.findChild<QComboBox*>("importAlign");
  for (const char* mode : {"wall", "collective", "p2p"})
    EXPECT_TRUE(align->itemText(align->findData(mode)).startsWith(alignModeLabel(mode))) << mode;
}

// A long path is elided at its start: the file name stays in sight, the whole path in the tip.
TEST(ImportWords, ALongPathKeepsItsFileName) {
  ImportDialog dialog;
  dialog.resize(600, 400);
  dialog.show();
  const QString path =
      "/home/someone/experiments/2026-12-04/cluster-a/profiles/run-17/"
      "torch-pipelining/rank-traces/worker0.pt.trace.json";
  dialog.setFiles({path});
  QTest::qWait(20);
  auto* list = dialog.findChild<QListWidget*>("importFiles");
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(list->item(0)->toolTip(), path);
  const QRect row = list->visualItemRect(list->item(0));
  EXPECT_LE(row.width(), list->viewport()->width()) << "no row past the list's right edge";
  EXPECT_FALSE(list->horizontalScrollBar()->isVisible());
  EXPECT_EQ(list->textElideMode(), Qt::ElideLeft);
  EXPECT_EQ(dialog.request().files, QStringList{path}) << "the request keeps the whole path";
  if (const char* dir = std::getenv("PIPESCOPE_UI_SHOTS"))
    dialog.grab().save(QString(dir) + "/import-dialog-long-path.png");
}

// One process, stages on two threads that overlap in time, as PiPPy's visualiser writes them.
std::string importWordsTwoThreads() {
  std::string events;
  auto event = [&](const std::string& name, int tid, int start) {
    if (!events.empty()) events += ",";
    events += "{\"name\":\"" + name + "\",\"ph\":\"X\",\"ts\":" + std::to_string(1000 + start) +
              ",\"dur\":100,\"pid\":\"0\",\"tid\":\"" + std::to_string(tid) + "\"}";
  };
  for (int mb = 0; mb < 2; ++mb) {
    event("F_0," + std::to_string(mb), 0, mb * 100);
    event("F_1," + std::to_string(mb), 1, 50 + mb * 100);
    event("B_1," + std::to_string(mb), 1, 300 + mb * 100);
    event("B_0," + std::to_string(mb), 0, 350 + mb * 100);
  }
  return "[" + events + "]";
}

void importWordsWait(MainWindow& w) {
  for (int i = 0; i < 250 && w.importBusy(); ++i)
    QTest::qWait(20);
  QTest::qWait(20);
}

TEST(ImportWordsUi, ComputeOnSeveralThreadsOffersAOneClickReimport) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("live.sqlite"))));
  auto* history = w.findChild<QListWidget*>("runHistory");
  const int before = history->count();
  ImportRequest request;
  request.format = "kineto";
  request.files << QString::fromStdString(dir.file("pipe_visualized.json"));
  test::writeFile(request.files[0].toStdString(), importWordsTwoThreads());
  w.importTraces(request, false);
  importWordsWait(w);
  ASSERT_EQ(history->count(), before + 1) << w.lastError().toStdString();
  const QString summary = w.lastImportSummary();
  EXPECT_TRUE(summary.contains("1 rank(s)")) << summary.toStdString();
  EXPECT_TRUE(summary.contains("'Each thread is a rank'")) << summary.toStdString();
  EXPECT_FALSE(summary.contains("--")) << summary.toStdString();
  EXPECT_TRUE(w.statusBar()->currentMessage().contains("'Each thread is a rank'"))
      << w.statusBar()->currentMessage().toStdString();
  auto* box = w.findChild<ImportSummaryDialog*>("importSummaryDialog");
  ASSERT_NE(box, nullptr);
  EXPECT_FALSE(box->findChild<QPlainTextEdit*>("importSummary")->toPlainText().contains("--"));
  ASSERT_NE(box->findChild<QLabel*>("importThreadsAdvice"), nullptr);
  auto* reimport = box->findChild<QPushButton*>("importReimportThreads");
  ASSERT_NE(reimport, nullptr);
  if (const char* shots = std::getenv("PIPESCOPE_UI_SHOTS"))
    box->grab().save(QString(shots) + "/import-summary-threads.png");
  reimport->click();
  importWordsWait(w);
  ASSERT_EQ(history->count(), before + 2) << w.lastError().toStdString();
  EXPECT_TRUE(w.lastImportSummary().contains("2 rank(s)")) << w.lastImportSummary().toStdString();
  // Imported as ranks already: no second offer.
  for (auto* shown : w.findChildren<ImportSummaryDialog*>("importSummaryDialog"))
    if (shown->isVisible()) {
      EXPECT_EQ(shown->findChild<QPushButton*>("importReimportThreads"), nullptr);
    }
}

TEST(ImportWordsUi, AFailedImportNamesTheDialogsControls) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("live.sqlite"))));
  ImportRequest request;
  request.format = "torch-csv";
  request.files << QString::fromStdString(dir.file("s.csv"));
  test::writeFile(request.files[0].toStdString(), "0F0,0B0\n");
  request.threadsAsRanks = true;  // the dialog greys it for schedules; the core refuses it
  w.importTraces(request, false);
  importWordsWait(w);
  EXPECT_TRUE(w.lastError().startsWith("'Each thread is a rank': torch-csv is a schedule"))
      << w.lastError().toStdString();
  EXPECT_FALSE(w.lastError().contains("--")) << w.lastError().toStdString();
  EXPECT_FALSE(w.statusBar()->currentMessage().contains("--"))
      << w.statusBar()->currentMessage().toStdString();
}

// The real PiPPy visualiser trace ($PIPESCOPE_EXTERNAL_TRACES/kineto/pippy_pipe_visualized.json).
TEST(ImportWordsUi, PippysVisualiserTraceOffersThreadsAsRanks) {
  const char* root = std::getenv("PIPESCOPE_EXTERNAL_TRACES");
  if (!root) GTEST_SKIP() << "PIPESCOPE_EXTERNAL_TRACES not set";
  const std::filesystem::path file =
      std::filesystem::path(root) / "kineto" / "pippy_pipe_visualized.json";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " missing";
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("live.sqlite"))));
  ImportRequest request;
  request.format = "kineto";
  request.files << QString::fromStdString(file.string());
  w.importTraces(request, false);
  importWordsWait(w);
  EXPECT_TRUE(w.lastImportSummary().contains("4 threads of this one process"))
      << w.lastImportSummary().toStdString();
  auto* reimport = w.findChild<QPushButton*>("importReimportThreads");
  ASSERT_NE(reimport, nullptr);
  reimport->click();
  importWordsWait(w);
  EXPECT_TRUE(w.lastImportSummary().contains("4 rank(s)")) << w.lastImportSummary().toStdString();
}

}  // namespace
}  // namespace ps::ui
