// pipescope-cli: the headless face of PipeScope (DESIGN §5). Links no Qt, so it runs on cluster
// nodes that have only CUDA/NCCL/MPI/SQLite.

#include <CLI/CLI.hpp>

#include <iostream>
#include <vector>

#include "app/cli/CliCommon.h"
#include "app/cli/Commands.h"

namespace {

int runCli(int argc, char** argv) {
  CLI::App app{"PipeScope: plan, run and measure pipeline-parallel training schedules",
               "pipescope-cli"};
  app.set_version_flag("--version", std::string("pipescope-cli ") + PIPESCOPE_VERSION);
  app.require_subcommand(1);

  std::vector<std::pair<CLI::App*, ps::cli::Action>> commands;
  auto add = [&](ps::cli::Action (*fn)(CLI::App&)) {
    const std::size_t before = app.get_subcommands({}).size();
    ps::cli::Action action = fn(app);
    commands.emplace_back(app.get_subcommands({})[before], std::move(action));
  };
  add(ps::cli::addSchedulesCommand);
  add(ps::cli::addPresetsCommand);
  add(ps::cli::addSimCommand);
  add(ps::cli::addExploreCommand);
  add(ps::cli::addSynthCommand);
  add(ps::cli::addRunCommand);
  add(ps::cli::addReportCommand);
  add(ps::cli::addFitCommand);
  add(ps::cli::addCompareCommand);
  add(ps::cli::addImportCommand);
  add(ps::cli::addExportCommand);
  add(ps::cli::addDemoCommand);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    ps::cli::fail(e.what());
    std::cerr << "Run with --help for usage.\n";
    return ps::cli::kExitBadInput;
  }
  for (auto& [sub, action] : commands)
    if (sub->parsed()) return action();
  return ps::cli::fail("no command given");
}

}  // namespace

int main(int argc, char** argv) {
  return ps::cli::runGuarded([&] { return runCli(argc, argv); });
}
