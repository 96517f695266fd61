// pipescope-cli run PLAN --backend cpu|cuda [--steps N] [--procs] --db FILE plus model flags: real
// training of the layered model, pipelined by the plan, recorded step by step (DESIGN §3, §5),
// through the one runtime entry point (runtime/run/RunPlan.h).
// --procs (under `mpirun -np P`): one MPI process per rank; rank 0 opens the file and writes the
// one run, gathering every step's records from the other ranks (runtime/mpi/MpiExecutor.h).

#include <CLI/CLI.hpp>

#include <atomic>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <unistd.h>

#include "app/cli/CliCommon.h"
#include "app/cli/CliInterrupt.h"
#include "app/cli/Commands.h"
#include "app/cli/PlanOptions.h"
#include "app/cli/RunPrediction.h"
#include "app/cli/WrittenRun.h"
#include "runtime/run/BackendDescription.h"
#include "runtime/run/Backends.h"
#include "runtime/run/ModelRun.h"
#include "runtime/run/RunPlan.h"
#include "trace/TerminalText.h"
#include "trace/Units.h"
#include "trace/analysis/RunAnalysis.h"
#ifdef PIPESCOPE_HAVE_MPI
#include "runtime/mpi/MpiRunRequest.h"
#include "runtime/mpi/MpiSession.h"
#endif

namespace ps::cli {
namespace {

struct RunOptions {
  PlanOptions plan;
  std::string backend;  // the registry's first model backend unless --backend says
  bool procs = false;
  std::string model = "mlp";
  int hidden = 64;
  int seq = 16;
  int mbSize = 4;
  int heads = 4;
  std::uint64_t seed = 42;
  std::string optimizer = "adam";
  float lr = 0.001f;
  std::string dtype = "fp32";  // cuda: GEMM inputs fp32 or bf16 (fp32 accumulate)
  bool smSplit = false;        // cuda: each rank sharing a GPU gets its own share of the SMs
  bool compareSim = false;     // calibrate, simulate, print predicted vs measured
  std::string calibrateOut;    // write the calibrated cost JSON here
};

// The model, optimizer and device flags as the executors take them; errors name the flag.
Result<runtime::CpuRunOptions> executorOptions(const RunOptions& o, const runtime::Plan& plan) {
  runtime::CpuRunOptions options;
  auto block = runtime::parseBlockType(o.model);
  if (!block) return Error{"--model: " + block.error()};
  options.model.block = *block;
  options.model.hidden = o.hidden;
  options.model.seq = o.seq;
  options.model.microbatchSize = o.mbSize;
  options.model.heads = o.heads;
  options.model.seed = o.seed;
  runtime::fitModelToPlan(plan, options.model);
  auto kind = runtime::parseOptimizerKind(o.optimizer);
  if (!kind) return Error{"--optimizer: " + kind.error()};
  options.optimizer.kind = *kind;
  options.optimizer.lr = o.lr;
  auto dtype = runtime::parseDtype(o.dtype);
  if (!dtype) return Error{"--dtype \"" + o.dtype + "\": give fp32 or bf16"};
  options.dtype = *dtype;
  options.smSplit = o.smSplit;
  options.linkGbps = o.plan.spec.uniform.linkGbps;
  options.linkLatencyUs = o.plan.spec.uniform.linkLatencyUs;
  return options;
}

// What the numbers of a run on the host's cores will include: contention, emulated latencies,
// which kernels.
void warnAboutTheRun(const runtime::BackendInfo& row, const runtime::Plan& plan,
                     const runtime::CpuRunOptions& options, const RunOptions& o) {
  if (!row.computesOnHostCores) return;
  // --graph-nodes gives the gnn model the simulator's graph: its chunks are N/M nodes, whatever
  // --mb-size x --seq asked for.
  const long asked = static_cast<long>(o.mbSize) * o.seq * plan.numMicrobatches();
  if (o.model == "gnn" && plan.graphNodes > 0 && plan.graphNodes != asked)
    std::cerr << "pipescope-cli: note: the gnn model trains the graph of --graph-nodes "
              << plan.graphNodes << ": " << plan.graphNodes / plan.numMicrobatches()
              << " nodes a chunk, not --mb-size x --seq = " << o.mbSize * o.seq << '\n';
  const unsigned cores = std::thread::hardware_concurrency();
  if (cores && static_cast<unsigned>(plan.numRanks) > cores)
    std::cerr << "pipescope-cli: warning: " << plan.numRanks << " ranks on " << cores
              << " cores: measured times include contention between ranks\n";
  // Emulated links wait for real: a latency meant for the simulator would look like a hang.
  if (options.linkLatencyUs >= 1e6)
    std::cerr << "pipescope-cli: warning: --link-latency-us: every transfer between ranks waits "
              << trace::formatDuration(static_cast<std::int64_t>(options.linkLatencyUs * 1e3))
              << " for real on the " << row.name << " backend (Ctrl-C cancels)\n";
  // Which kernels the numbers come from: the BLAS's set for this CPU and the vector width of
  // our own elementwise kernels.
  const runtime::BackendDescription kernels = runtime::describeBackend(row.id);
  std::cerr << "pipescope-cli: " << row.name << " kernels: " << kernels.summary() << '\n';
  if (!kernels.warning.empty()) std::cerr << "pipescope-cli: " << kernels.warning << '\n';
}

// Ctrl-C cancels; on a terminal, "step k/n" as the steps are written (`shown` says whether a
// line is open).
runtime::RunControl stepsOnTerminal(const InterruptScope& interrupt, bool tty,
                                    std::atomic<bool>& shown) {
  runtime::RunControl control;
  control.cancel = interrupt.flag();
  control.progress = [tty, &shown](runtime::RunStage stage, int done, int total) {
    if (!tty || stage != runtime::RunStage::Run || done == 0) return;
    std::cerr << "\rstep " << done << "/" << total << std::flush;
    shown = true;
  };
  return control;
}

// Rank 0's account of a model run: why it did not start or end, else its summary line and,
// with --compare-sim, the prediction beside it.
int reportModelRun(const RunOptions& o, Result<runtime::RunPlanResult>& result,
                   const InterruptScope& interrupt, const runtime::CpuRunOptions& options,
                   const std::optional<runtime::CostModel>& calibrated, runtime::Backend backend) {
  if (!result) return fail(result.error());
  if (result->setupFailed) return fail(result->message);  // the executor refused to start
  if (result->status != trace::RunStatus::Complete)
    return fail((result->runId ? "run " + std::to_string(*result->runId) + " " : "run ") +
                    std::string(trace::runStatusName(result->status)) + ": " + result->message,
                kExitRunFailed);

  const std::int64_t runId = *result->runId;
  const auto& loss = result->exec->stepLoss;
  const int code = summariseWrittenRun(
      *result->store, runId, interrupt, [&](const trace::RunTrace&, const trace::RunAnalysis& a) {
        std::cout << "run " << runId << ": " << trace::terminalSafe(result->name) << ": step "
                  << (a.step_time_ns ? trace::formatDuration(*a.step_time_ns) : "-") << ", bubble "
                  << (a.bubble_ratio ? trace::formatPercent(*a.bubble_ratio) : "-") << ", loss "
                  << (loss.empty() ? 0.0 : loss.front()) << " -> "
                  << (loss.empty() ? 0.0 : loss.back()) << '\n';
      });
  if (code != kExitOk) return code;
  if (o.compareSim && calibrated)
    return reportPrediction(
        *result->store, runId, result->built, options, *calibrated, result->name,
        predictionPlacementNote(backend, result->built->plan.numRanks, options.smSplit),
        interrupt.flag());
  return kExitOk;
}

int runModel(RunOptions& o) {
  // --backend is checked against the registry's model rows (addRunCommand).
  const runtime::BackendInfo* row = runtime::findBackend(o.backend);
  if (!row || !row->trainsModel) return fail("--backend " + o.backend + ": not a model backend");
  const runtime::Backend backend = row->id;
#ifdef PIPESCOPE_HAVE_MPI
  // --procs: every process runs this function for its own rank; only rank 0 speaks and writes.
  std::unique_ptr<runtime::mpi::MpiSession> mpi;
  if (o.procs) mpi = std::make_unique<runtime::mpi::MpiSession>();
  const bool root = !mpi || mpi->rank() == 0;
#else
  if (o.procs)
    return fail("--procs: this pipescope-cli was built without MPI; use threads (omit --procs)");
  const bool root = true;
#endif
  // Errors are the same on every process (same flags); rank 0 prints them.
  auto fail = [root](std::string_view message, int code = kExitBadInput) {
    return root ? cli::fail(message, code) : code;
  };

  auto built = buildPlanFromOptions(o.plan);
  if (!built) return fail(built.error());
  if (root)
    for (const auto& note : built->notes)
      std::cerr << "pipescope-cli: note: " << trace::terminalSafe(note, 1000) << '\n';
#ifdef PIPESCOPE_HAVE_MPI
  if (mpi)
    if (auto fits = runtime::mpi::checkMpiWorld(mpi->size(), built->plan); !fits)
      return fail(fits.error());
#endif
  auto options = executorOptions(o, built->plan);
  if (!options) return fail(options.error());
  // runPlan checks these too; here before calibrating, so that a bad flag or a missing device
  // costs no time. A feature the backend never runs is named before the device (a --frozen-us
  // plan on a machine without a GPU hears that cuda does not run it).
  if (auto v = runtime::checkModelRequest(backend, o.procs, *built, *options); !v)
    return fail(v.error());

  if (root) warnAboutTheRun(*row, built->plan, *options, o);

  // Calibration (--compare-sim, --calibrate-out): before the file is touched.
  auto calibrated =
      calibrateForRun(*built, *options, {o.compareSim, o.calibrateOut, root, backend});
  if (!calibrated) return fail(calibrated.error());

  runtime::RunPlanRequest request;
  request.built = std::make_shared<const runtime::BuiltPlan>(std::move(*built));
  request.backend = backend;
  request.name = o.plan.name;
  request.exec = *options;
  request.calibrated = *calibrated;
  request.write = root;  // with --procs the other processes send rank 0 their records
#ifdef PIPESCOPE_HAVE_MPI
  if (mpi) runtime::mpi::useMpiProcesses(request);
#endif
  // Ctrl-C or SIGTERM (mpirun forwards both to every process): each rank stops at its next
  // poll, rank 0 ends the run 'cancelled' and the store closes in rollback mode.
  const InterruptScope interrupt;
  std::atomic<bool> stepShown{false};  // with --procs, steps are reported on a writer thread
  const runtime::RunControl control = stepsOnTerminal(interrupt, root && isatty(2), stepShown);
  auto result = runtime::runPlan(request, {o.plan.db}, control);
  if (stepShown) std::cerr << '\n';
  if (!root) {  // rank 0 reports for the whole run
    if (!result || result->setupFailed) return kExitBadInput;
    return result->status == trace::RunStatus::Complete ? kExitOk : kExitRunFailed;
  }
  return reportModelRun(o, result, interrupt, *options, *calibrated, backend);
}

}  // namespace

Action addRunCommand(CLI::App& app) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* cmd =
      app.add_subcommand("run", "Train the layered model pipelined by a plan; record it");
  addPlanOptions(*cmd, opt->plan);
  // The registry's model backends (the simulator is `sim`), each with its summary.
  std::vector<std::string> names;
  std::string help = "Where the model trains:";
  for (const runtime::BackendInfo& row : runtime::backends())
    if (row.trainsModel) {
      names.emplace_back(row.name);
      help += " " + std::string(row.name) + ": " + std::string(row.summary);
    }
  if (!names.empty()) opt->backend = names.front();
  cmd->add_option("--backend", opt->backend, help)->check(CLI::IsMember(names));
  cmd->add_option("--dtype", opt->dtype,
                  "cuda: GEMM inputs fp32 (the reference) or bf16 (fp32 accumulate)")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  cmd->add_flag("--sm-split", opt->smSplit,
                "cuda: ranks sharing a GPU each get their own share of its SMs (green contexts, "
                "where the driver supports them)");
  cmd->add_flag("--procs", opt->procs, "Run the ranks as MPI processes (mpirun -np P)");
  cmd->add_option(
         "--model", opt->model,
         "Block type: mlp, transformer, snn (leaky integrate-and-fire neurons in place of GELU) "
         "moe (top-2 of 4 MLP experts under a router, capacity 1.25; host only) or gnn (a "
         "micro-batch is a chunk of a power-law graph, neighbours in other chunks read from "
         "historical embeddings; host only)")
      ->check(CLI::IsMember({"mlp", "transformer", "snn", "moe", "gnn"}));
  cmd->add_option("--hidden", opt->hidden, "Hidden size H")->check(CLI::Range(1, 1 << 16));
  cmd->add_option("--seq", opt->seq, "Sequence length S")->check(CLI::Range(1, 1 << 16));
  cmd->add_option("--mb-size", opt->mbSize, "Sequences per micro-batch B")
      ->check(CLI::Range(1, 1 << 16));
  cmd->add_option("--heads", opt->heads, "Attention heads (transformer)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--seed", opt->seed, "Seed of the weights and the synthetic data");
  cmd->add_option("--optimizer", opt->optimizer, "sgd or adam")
      ->check(CLI::IsMember({"sgd", "adam"}));
  cmd->add_option("--lr", opt->lr, "Learning rate")->check(CLI::PositiveNumber);
  cmd->add_flag("--compare-sim", opt->compareSim,
                "Calibrate, simulate the plan with the calibrated costs, store that run too, and "
                "print predicted vs measured step time and bubble");
  cmd->add_option("--calibrate-out", opt->calibrateOut,
                  "Time each layer's F, I and W on this backend; write the cost JSON here");
  return [opt]() { return runModel(*opt); };
}

}  // namespace ps::cli
