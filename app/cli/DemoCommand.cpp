// pipescope-cli demo --db FILE: writes a small GPipe run whose numbers are known in closed form,
// so a fresh checkout has something to report and open before any schedule is simulated.

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "app/cli/CliCommon.h"
#include "app/cli/Commands.h"
#include "trace/Synthetic.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"

namespace ps::cli {

namespace {
struct DemoOptions {
  std::string db;
  trace::SyntheticGpipe gpipe;
};
}  // namespace

Action addDemoCommand(CLI::App& app) {
  auto opt = std::make_shared<DemoOptions>();
  CLI::App* cmd = app.add_subcommand("demo", "Append a closed-form GPipe demo run to a trace file");
  cmd->add_option("--db", opt->db, "Trace file to append to")->required();
  cmd->add_option("--stages", opt->gpipe.ranks, "Pipeline stages (ranks)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--microbatches", opt->gpipe.microbatches, "Micro-batches")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--steps", opt->gpipe.steps, "Training steps")->check(CLI::Range(1, 100000));
  return [opt]() {
    auto store = trace::TraceStore::open(opt->db, trace::TraceStore::Mode::ReadWrite);
    if (!store) return fail(store.error());
    auto writer = trace::TraceWriter::begin(*store, trace::syntheticGpipeHeader(opt->gpipe));
    if (!writer) return fail(writer.error(), kExitRunFailed);
    for (int step = 0; step < opt->gpipe.steps; ++step) {
      if (auto s = writer->write(trace::syntheticGpipeStep(opt->gpipe, step)); !s)
        return fail(s.error(), kExitRunFailed);
    }
    if (auto s = writer->finish(trace::RunStatus::Complete); !s)
      return fail(s.error(), kExitRunFailed);
    std::cout << "run " << writer->runId() << " written to " << opt->db << '\n';
    return kExitOk;
  };
}

}  // namespace ps::cli
