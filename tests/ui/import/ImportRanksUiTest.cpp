// The app's import is runtime::importRun (issue 33 §2): the dialog's ranks reach it as the CLI's
// --rank FILE=N does, for files that do not say which rank they are.

#include <gtest/gtest.h>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QTest>

#include "tests/common/TestUtil.h"
#include "ui/MainWindow.h"
#include "ui/import/ImportDialog.h"
#include "ui/import/ImportRequest.h"

namespace ps::ui {
namespace {

// One rank of GPipe p = 2, m = 1 (F = 10 µs, B = 20 µs) as torch-pipelining GPU annotations,
// with no distributedInfo: neither the file nor its name says its rank.
std::string anonymousKinetoRank(int rank) {
  const int f = rank == 0 ? 0 : 10, b = rank == 0 ? 50 : 30;
  auto event = [&](const char* kind, int start, int dur) {
    return "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"PP:" + std::to_string(rank) +
           kind + "0\",\"pid\":0,\"tid\":7,\"ts\":" + std::to_string(1'000'000 + start) +
           ",\"dur\":" + std::to_string(dur) + "}";
  };
  return "{\"traceEvents\":[" + event("F", f, 10) + "," + event("B", b, 20) + "]}";
}

TEST(ImportRanksUi, TheDialogTakesOneRankPerFileForProfilesOnly) {
  test::TempDir dir;
  const QString first = QString::fromStdString(dir.file("first.json"));
  const QString second = QString::fromStdString(dir.file("second.json"));
  const QString csv = QString::fromStdString(dir.file("s.csv"));
  test::writeFile(first.toStdString(), anonymousKinetoRank(0));
  test::writeFile(second.toStdString(), anonymousKinetoRank(1));
  test::writeFile(csv.toStdString(), "0F0,0B0\n");
  ImportDialog dialog;
  auto* ranks = dialog.findChild<QLineEdit*>("importRanks");
  ASSERT_NE(ranks, nullptr);
  auto* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
  dialog.setFiles({first, second});
  EXPECT_TRUE(dialog.request().ranks.isEmpty());  // empty: the files say
  ranks->setText("1, 0");
  EXPECT_TRUE(ok->isEnabled());
  const QMap<QString, int> expected{{first, 1}, {second, 0}};
  EXPECT_EQ(dialog.request().ranks, expected);
  for (const QString bad : {"1", "1 0 2", "0 x", "0 -1"}) {
    ranks->setText(bad);
    EXPECT_FALSE(ok->isEnabled()) << bad.toStdString();
  }
  ranks->setText("0 1");
  dialog.setFiles({csv});  // a schedule's ranks are the file's
  EXPECT_FALSE(ranks->isEnabled());
  EXPECT_TRUE(ok->isEnabled());
  EXPECT_TRUE(dialog.request().ranks.isEmpty());
}

TEST(ImportRanksUi, FilesThatDoNotSayTheirRankImportWithTheDialogsRanks) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("live.sqlite"))));
  auto* history = w.findChild<QListWidget*>("runHistory");
  const int before = history->count();
  ImportRequest request;
  request.format = "kineto";
  for (int r = 0; r < 2; ++r) {
    const std::string path = dir.file(r == 0 ? "first.json" : "second.json");
    test::writeFile(path, anonymousKinetoRank(r));
    request.files << QString::fromStdString(path);
  }
  auto importAndWait = [&] {
    w.importTraces(request, false);
    for (int i = 0; i < 250 && w.importBusy(); ++i)
      QTest::qWait(20);
    QTest::qWait(20);
  };
  importAndWait();  // refused: nothing says which file is which rank
  EXPECT_EQ(history->count(), before);
  EXPECT_TRUE(w.lastError().contains("cannot tell which rank")) << w.lastError().toStdString();

  request.ranks = {{request.files[0], 0}, {request.files[1], 1}};
  importAndWait();
  ASSERT_EQ(history->count(), before + 1) << w.lastError().toStdString();
  EXPECT_TRUE(w.lastImportSummary().contains("2 rank(s)")) << w.lastImportSummary().toStdString();
  EXPECT_TRUE(w.lastImportSummary().contains("rank 1 <- " + request.files[1]))
      << w.lastImportSummary().toStdString();
}

}  // namespace
}  // namespace ps::ui
