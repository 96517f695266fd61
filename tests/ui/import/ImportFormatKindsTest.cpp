// The app asks the import registry (trace/import/ImportFormats.h) what a format is instead of
// spelling format names (issue 33 §3): whether its files are SQLite like our traces, whether a
// run's source is an imported profile or a simulated schedule.

#include <gtest/gtest.h>

#include "trace/import/ImportFormats.h"
#include "ui/QtText.h"
#include "ui/import/ImportRequest.h"

namespace ps::ui {
namespace {

TEST(ImportFormatKinds, AnswersFromTheRegistry) {
  int sqlite = 0, schedules = 0, profiles = 0;
  for (const auto& format : trace::import::importFormats()) {
    const std::string name(format.name);
    EXPECT_EQ(importFormatIsSqlite(toQString(format.name)), format.sqliteFiles) << name;
    EXPECT_EQ(isImportedSchedule(name), format.kind == trace::import::ImportKind::Schedule) << name;
    EXPECT_EQ(isImportedProfileFormat(name), format.kind == trace::import::ImportKind::Profiles)
        << name;
    sqlite += format.sqliteFiles ? 1 : 0;
    schedules += isImportedSchedule(name) ? 1 : 0;
    profiles += isImportedProfileFormat(name) ? 1 : 0;
  }
  EXPECT_EQ(sqlite, 1);  // nsys
  EXPECT_GE(schedules, 1);
  EXPECT_GE(profiles, 2);
  for (const char* source : {"sim", "cpu", "cuda", ""}) {
    EXPECT_FALSE(isImportedSchedule(source)) << source;
    EXPECT_FALSE(isImportedProfileFormat(source)) << source;
  }
  EXPECT_FALSE(importFormatIsSqlite(""));
}

}  // namespace
}  // namespace ps::ui
