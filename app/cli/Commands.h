#pragma once
// Each subcommand registers its options on the CLI11 app and returns the action to run once the
// command line has parsed. Actions return the process exit code.

#include <functional>

namespace CLI {
class App;
}

namespace ps::cli {

using Action = std::function<int()>;

Action addReportCommand(CLI::App& app);
Action addCompareCommand(CLI::App& app);
Action addDemoCommand(CLI::App& app);
Action addSchedulesCommand(CLI::App& app);
Action addPresetsCommand(CLI::App& app);
Action addSimCommand(CLI::App& app);
Action addRunCommand(CLI::App& app);
Action addExportCommand(CLI::App& app);
Action addImportCommand(CLI::App& app);
Action addExploreCommand(CLI::App& app);
Action addFitCommand(CLI::App& app);
Action addSynthCommand(CLI::App& app);

}  // namespace ps::cli
