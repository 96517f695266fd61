// pipescope-cli schedules: every generator with one line each.

#include <CLI/CLI.hpp>

#include <cstdio>

#include "app/cli/CliCommon.h"
#include "app/cli/Commands.h"
#include "runtime/schedules/Schedule.h"

namespace ps::cli {

Action addSchedulesCommand(CLI::App& app) {
  app.add_subcommand("schedules", "List the schedule generators");
  return []() {
    for (const auto& s : runtime::scheduleRegistry()) {
      const bool constrained = !s.constraints.empty() && s.constraints != "none";
      std::printf("%-16s %-14s %s%s\n", s.name.c_str(), s.family.c_str(), s.summary.c_str(),
                  constrained ? ("  [" + s.constraints + "]").c_str() : "");
    }
    return kExitOk;
  };
}

}  // namespace ps::cli
