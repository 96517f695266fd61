// The import dialog offers what the format registry lists (trace/import/ImportFormats.h), and
// threads-as-ranks for profiles (issue 12, case 11).

#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>

#include <cstdlib>

#include "tests/common/TestUtil.h"
#include "trace/import/ImportFormats.h"
#include "ui/import/ImportDialog.h"
#include "ui/import/ImportRequest.h"

namespace ps::ui {
namespace {

TEST(ImportDialogTest, FormatsAreTheRegistrysInItsOrder) {
  ImportDialog dialog;
  auto* format = dialog.findChild<QComboBox*>("importFormat");
  ASSERT_NE(format, nullptr);
  const auto formats = trace::import::importFormats();
  ASSERT_EQ(format->count(), static_cast<int>(formats.size()));
  for (int i = 0; i < format->count(); ++i) {
    EXPECT_EQ(format->itemData(i).toString().toStdString(), formats[i].name);
    EXPECT_EQ(format->itemText(i).toStdString(), formats[i].label);
  }
}

TEST(ImportDialogTest, ThreadsAsRanksIsOfferedForProfilesOnly) {
  test::TempDir dir;
  const std::string json = dir.file("pippy.json"), csv = dir.file("s.csv");
  test::writeFile(json, "{\"traceEvents\": []}");
  test::writeFile(csv, "0F0,0B0\n");
  ImportDialog dialog;
  auto* threads = dialog.findChild<QCheckBox*>("importThreadsAsRanks");
  ASSERT_NE(threads, nullptr);
  dialog.setFiles({QString::fromStdString(json)});
  EXPECT_TRUE(threads->isEnabled());
  EXPECT_FALSE(dialog.request().threadsAsRanks);
  threads->setChecked(true);
  EXPECT_TRUE(dialog.request().threadsAsRanks);
  if (const char* shots = std::getenv("PIPESCOPE_UI_SHOTS"))
    dialog.grab().save(QString(shots) + "/import-dialog-threads.png");
  // A schedule has its ranks in the file: the box is off and the request says no.
  dialog.setFiles({QString::fromStdString(csv)});
  EXPECT_EQ(dialog.request().format, "torch-csv");
  EXPECT_FALSE(threads->isEnabled());
  EXPECT_FALSE(dialog.request().threadsAsRanks);
}

TEST(ImportDialogTest, NounsComeFromTheRegistry) {
  EXPECT_EQ(importFormatNoun("nsys"), "an Nsight Systems export");
  EXPECT_EQ(importFormatNoun("kineto"), "a PyTorch profiler trace");
  EXPECT_EQ(importFormatNoun("torch-csv"), "a torch pipelining schedule");
  EXPECT_EQ(importFormatNoun("pipescope"), "");
}

}  // namespace
}  // namespace ps::ui
