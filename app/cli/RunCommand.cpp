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
#include "runtime/run/BackendDescription.h"
#include "runtime/run/Backends.h"
#include "runtime/run/ModelRun.h"
#include "runtime/run/RunPlan.h"
#include "trace/TerminalText.h"
#include "trace/Units.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/store/TraceReader.h"
#ifdef PIPESCOPE_HAVE_MPI
#include "runtime/mpi/MpiCuda.h"
#include "runtime/mpi/MpiExecutor.h"
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
  options.model.layers = plan.numLayers;
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
  if (mpi && mpi->size() != built->plan.numRanks)
    return fail("--procs: MPI world size " + std::to_string(mpi->size()) +
                " differs from the plan's " + std::to_string(built->plan.numRanks) +
                " ranks (launch with mpirun -np " + std::to_string(built->plan.numRanks) + ")");
  // Before any file is touched (the transport says so too, at the first optimizer step).
  if (mpi && built->plan.numReplicas() > 2)
    return fail("--dp " + std::to_string(built->plan.numReplicas()) +
                ": MPI processes all-reduce between two replicas (give --dp 2, or run threads "
                "without --procs)");
#endif
  auto options = executorOptions(o, built->plan);
  if (!options) return fail(options.error());
  // runPlan checks these too; here before calibrating, so that a bad flag or a missing device
  // costs no time. A feature the backend never runs is named before the device (a --frozen-us
  // plan on a machine without a GPU hears that cuda does not run it).
  if (auto v = runtime::checkModelRequest(backend, o.procs, *built, *options); !v)
    return fail(v.error());

  const unsigned cores = std::thread::hardware_concurrency();
  const bool onCores = root && row->computesOnHostCores;
  if (onCores && cores && static_cast<unsigned>(built->plan.numRanks) > cores)
    std::cerr << "pipescope-cli: warning: " << built->plan.numRanks << " ranks on " << cores
              << " cores: measured times include contention between ranks\n";
  // Emulated links wait for real: a latency meant for the simulator would look like a hang.
  if (onCores && options->linkLatencyUs >= 1e6)
    std::cerr << "pipescope-cli: warning: --link-latency-us: every transfer between ranks waits "
              << trace::formatDuration(static_cast<std::int64_t>(options->linkLatencyUs * 1e3))
              << " for real on the " << row->name << " backend (Ctrl-C cancels)\n";
  if (onCores) {
    // Which kernels the numbers come from: the BLAS's set for this CPU and the vector width of
    // our own elementwise kernels.
    const runtime::BackendDescription kernels = runtime::describeBackend(backend);
    std::cerr << "pipescope-cli: " << row->name << " kernels: " << kernels.summary() << '\n';
    if (!kernels.warning.empty()) std::cerr << "pipescope-cli: " << kernels.warning << '\n';
  }

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
  if (mpi) {
    request.executor.run = [backend](const runtime::Plan& plan, const runtime::OpGraph& graph,
                                     const runtime::CpuRunOptions& exec, trace::TraceWriter* writer,
                                     const trace::RunHeader& header) {
      if (backend != runtime::Backend::Cuda)
        return runtime::mpi::runOnMpiProcesses(plan, graph, exec, writer, header.ranks);
      // One GPU per process, tensors over NCCL; records and control stay on MPI.
      const runtime::mpi::CudaProcessDevice device(exec);
      return runtime::mpi::runOnMpiProcesses(plan, graph, exec, writer, header.ranks,
                                             &device.device());
    };
    // Every process learns whether rank 0 could open the file and begin the run.
    request.executor.agree = [](const Status& mine) {
      return runtime::mpi::agreeAcrossRanks(mine);
    };
  }
#endif
  // Ctrl-C or SIGTERM (mpirun forwards both to every process): each rank stops at its next
  // poll, rank 0 ends the run 'cancelled' and the store closes in rollback mode.
  const InterruptScope interrupt;
  const bool tty = root && isatty(2);
  runtime::RunControl control;
  control.cancel = interrupt.flag();
  std::atomic<bool> stepShown{false};  // with --procs, steps are reported on a writer thread
  control.progress = [&](runtime::RunStage stage, int done, int total) {
    if (!tty || stage != runtime::RunStage::Run || done == 0) return;
    std::cerr << "\rstep " << done << "/" << total << std::flush;
    stepShown = true;
  };
  auto result = runtime::runPlan(request, {o.plan.db}, control);
  if (stepShown) std::cerr << '\n';
  if (!root) {  // rank 0 reports for the whole run
    if (!result || result->setupFailed) return kExitBadInput;
    return result->status == trace::RunStatus::Complete ? kExitOk : kExitRunFailed;
  }
  if (!result) return fail(result.error());
  if (result->setupFailed) return fail(result->message);  // the executor refused to start
  if (result->status != trace::RunStatus::Complete)
    return fail((result->runId ? "run " + std::to_string(*result->runId) + " " : "run ") +
                    std::string(trace::runStatusName(result->status)) + ": " + result->message,
                kExitRunFailed);

  const std::int64_t runId = *result->runId;
  trace::LoadOptions load;
  load.cancel = interrupt.flag();
  auto run = trace::loadRun(*result->store, runId, load);
  if (!run && interrupt.interrupted())
    return fail(
        "interrupted after run " + std::to_string(runId) + " was written (complete); no summary",
        kExitRunFailed);
  if (!run) return fail(run.error(), kExitRunFailed);
  const auto a = trace::analyzeRun(*run);
  const auto& loss = result->exec->stepLoss;
  std::cout << "run " << runId << ": " << trace::terminalSafe(result->name) << ": step "
            << (a.step_time_ns ? trace::formatDuration(*a.step_time_ns) : "-") << ", bubble "
            << (a.bubble_ratio ? trace::formatPercent(*a.bubble_ratio) : "-") << ", loss "
            << (loss.empty() ? 0.0 : loss.front()) << " -> " << (loss.empty() ? 0.0 : loss.back())
            << '\n';
  if (o.compareSim && *calibrated)
    return reportPrediction(
        *result->store, runId, result->built, *options, **calibrated, result->name,
        predictionPlacementNote(backend, result->built->plan.numRanks, options->smSplit),
        interrupt.flag());
  return kExitOk;
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
  cmd->add_option("--model", opt->model, "Block type: mlp or transformer")
      ->check(CLI::IsMember({"mlp", "transformer"}));
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
