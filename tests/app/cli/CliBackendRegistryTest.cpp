// pipescope-cli run's --backend comes from the backends' registry (runtime/run/Backends.h): its
// help lists every model backend with its summary, and any other name is refused in one line.

#include <gtest/gtest.h>

#include <string>

#include "runtime/run/Backends.h"
#include "tests/app/CliTestUtil.h"

namespace ps {
namespace {

TEST(CliBackendRegistry, RunHelpListsEveryModelBackendWithItsSummary) {
  const auto help = test::cli({"run", "--help"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  int listed = 0;
  for (const runtime::BackendInfo& row : runtime::backends()) {
    if (!row.trainsModel) continue;
    ++listed;
    // CLI11 wraps long help: compare with the whitespace squeezed out.
    auto squeeze = [](std::string s) {
      std::string out;
      for (char c : s)
        if (c != ' ' && c != '\n') out += c;
      return out;
    };
    const std::string entry = std::string(row.name) + ": " + std::string(row.summary);
    EXPECT_NE(squeeze(help.out).find(squeeze(entry)), std::string::npos) << entry << "\n"
                                                                         << help.out;
  }
  EXPECT_GE(listed, 2);  // cpu, cuda and any later model backend
}

TEST(CliBackendRegistry, ANameOutsideTheModelRowsIsRefusedNamingTheFlag) {
  for (const std::string name : {"sim", "tpu"}) {
    const auto r = test::cli({"run", "--backend", name, "--db", "/nonexistent/x.sqlite"});
    EXPECT_NE(r.exit_code, 0) << name;
    EXPECT_NE(r.err.find("--backend"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace ps
