// pipescope-cli run PLAN --backend cpu|cuda [--steps N] [--procs] --db FILE plus model flags: real
// training of the layered model, pipelined by the plan, recorded step by step (DESIGN §3, §5).
// --procs (under `mpirun -np P`): one MPI process per rank; rank 0 opens the file and writes the
// one run, gathering every step's records from the other ranks (runtime/mpi/MpiExecutor.h).

#include <CLI/CLI.hpp>

#include <atomic>
#include <csignal>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include <unistd.h>

#include "app/cli/CliCommon.h"
#include "app/cli/Commands.h"
#include "app/cli/PlanOptions.h"
#include "app/cli/RunPrediction.h"
#include "runtime/exec/CpuExecutor.h"
#include "runtime/sim/SimWriter.h"
#include "trace/JsonWriter.h"
#include "trace/Units.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"

#ifdef PIPESCOPE_HAVE_CUDA
#include "kernels/cuda/DeviceQuery.h"
#endif
#ifdef PIPESCOPE_HAVE_MPI
#include "runtime/mpi/MpiExecutor.h"
#include "runtime/mpi/MpiSession.h"
#endif

namespace ps::cli {
namespace {

std::atomic<bool> gInterrupted{false};
extern "C" void onInterrupt(int) {
  gInterrupted = true;
}

struct RunOptions {
  PlanOptions plan;
  std::string backend = "cpu";
  bool procs = false;
  std::string model = "mlp";
  int hidden = 64;
  int seq = 16;
  int mbSize = 4;
  int heads = 4;
  std::uint64_t seed = 42;
  std::string optimizer = "adam";
  float lr = 0.001f;
  bool compareSim = false;   // calibrate, simulate, print predicted vs measured
  std::string calibrateOut;  // write the calibrated cost JSON here
};

// config_json of a cpu run: the plan's knobs plus the model's, so the run can be repeated.
std::string runConfigJson(const std::string& planJson, const RunOptions& o) {
  trace::JsonWriter w;
  w.beginObject();
  w.key("plan").raw(planJson);
  w.key("backend").value(o.backend);
  w.key("model").value(o.model);
  w.key("hidden").value(o.hidden);
  w.key("seq").value(o.seq);
  w.key("mb_size").value(o.mbSize);
  w.key("heads").value(o.heads);
  w.key("seed").value(static_cast<std::int64_t>(o.seed));
  w.key("optimizer").value(o.optimizer);
  w.key("lr").value(static_cast<double>(o.lr));
  w.endObject();
  return w.str();
}

int runCpu(RunOptions& o) {
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
      std::cerr << "pipescope-cli: note: " << note << '\n';
#ifdef PIPESCOPE_HAVE_MPI
  if (mpi && mpi->size() != built->plan.numRanks)
    return fail("--procs: MPI world size " + std::to_string(mpi->size()) +
                " differs from the plan's " + std::to_string(built->plan.numRanks) +
                " ranks (launch with mpirun -np " + std::to_string(built->plan.numRanks) + ")");
#endif

  runtime::CpuRunOptions options;
  auto block = runtime::parseBlockType(o.model);
  if (!block) return fail("--model: " + block.error());
  options.model.block = *block;
  options.model.hidden = o.hidden;
  options.model.seq = o.seq;
  options.model.microbatchSize = o.mbSize;
  options.model.heads = o.heads;
  options.model.seed = o.seed;
  options.model.layers = built->plan.numLayers;
  if (auto v = runtime::validate(options.model); !v) return fail(v.error());
  auto kind = runtime::parseOptimizerKind(o.optimizer);
  if (!kind) return fail("--optimizer: " + kind.error());
  options.optimizer.kind = *kind;
  options.optimizer.lr = o.lr;
  if (auto v = runtime::validate(options.optimizer); !v) return fail(v.error());
  options.linkGbps = o.plan.spec.uniform.linkGbps;
  options.linkLatencyUs = o.plan.spec.uniform.linkLatencyUs;

  const unsigned cores = std::thread::hardware_concurrency();
  if (root && cores && static_cast<unsigned>(built->plan.numRanks) > cores)
    std::cerr << "pipescope-cli: warning: " << built->plan.numRanks << " ranks on " << cores
              << " cores: measured times include contention between ranks\n";

  // Calibration, --compare-sim's prediction and the memory caps: before the file is touched.
  auto prediction = predictCpuRun(*built, options, {o.compareSim, o.calibrateOut, root});
  if (!prediction) return fail(prediction.error());

  const std::string name =
      o.plan.name.empty() ? runtime::planRunName(built->plan) + " cpu " + o.model : o.plan.name;
  auto header = runtime::planRunHeader(built->plan, built->cost, "cpu", name,
                                       runConfigJson(built->configJson, o));
  header.layers.clear();  // the cost model's layers are the plan's guess, not this model's
  if (*prediction && (*prediction)->calibrated)  // these are this model's
    header.layers =
        runtime::planRunHeader(built->plan, (*prediction)->cost, "cpu", name, {}).layers;
  // Only rank 0 touches the file (with --procs the others send it their records).
  std::optional<trace::TraceStore> store;
  std::optional<trace::TraceWriter> writer;
  int setupExit = kExitOk;
  std::string setupError;
  if (root) {
    if (auto opened = trace::TraceStore::open(o.plan.db, trace::TraceStore::Mode::ReadWrite);
        !opened) {
      setupExit = kExitBadInput;
      setupError = opened.error();
    } else {
      store.emplace(std::move(*opened));
      if (auto begun = trace::TraceWriter::begin(*store, header); !begun) {
        setupExit = kExitRunFailed;
        setupError = begun.error();
      } else {
        writer.emplace(std::move(*begun));
      }
    }
  }
#ifdef PIPESCOPE_HAVE_MPI
  if (mpi) {
    // Every process learns whether rank 0 could open the file (and with which exit code, the
    // message's first character).
    const auto agreed = runtime::mpi::agreeAcrossRanks(
        setupExit == kExitOk ? Status{} : Status{Error{std::to_string(setupExit) + setupError}});
    if (!agreed) return root ? fail(setupError, setupExit) : agreed.error().front() - '0';
  }
#endif
  if (setupExit != kExitOk) return fail(setupError, setupExit);

  gInterrupted = false;
  auto previous = std::signal(SIGINT, onInterrupt);
  options.cancel = &gInterrupted;
  const bool tty = root && isatty(2);
  options.onStepWritten = [&](int step) {
    if (tty) std::cerr << "\rstep " << step + 1 << "/" << built->plan.steps << std::flush;
  };
  trace::TraceWriter* out = writer ? &*writer : nullptr;
#ifdef PIPESCOPE_HAVE_MPI
  auto result =
      mpi ? runtime::mpi::runOnMpiProcesses(built->plan, built->graph, options, out, header.ranks)
          : runtime::runOnCpuThreads(built->plan, built->graph, options, out);
#else
  auto result = runtime::runOnCpuThreads(built->plan, built->graph, options, out);
#endif
  std::signal(SIGINT, previous);
  if (tty) std::cerr << '\n';
  if (!root) {  // rank 0 reports for the whole run
    if (!result) return kExitBadInput;
    return result->status == trace::RunStatus::Complete ? kExitOk : kExitRunFailed;
  }
  if (!result) {
    (void)writer->finish(trace::RunStatus::Failed, result.error());
    return fail(result.error());
  }
  if (auto s = writer->finish(result->status, result->message); !s)
    return fail(s.error(), kExitRunFailed);
  if (result->status != trace::RunStatus::Complete)
    return fail("run " + std::to_string(writer->runId()) + " " +
                    std::string(trace::runStatusName(result->status)) + ": " + result->message,
                kExitRunFailed);

  auto run = trace::loadRun(*store, writer->runId());
  if (!run) return fail(run.error(), kExitRunFailed);
  const auto a = trace::analyzeRun(*run);
  std::cout << "run " << writer->runId() << ": " << name << ": step "
            << (a.step_time_ns ? trace::formatDuration(*a.step_time_ns) : "-") << ", bubble "
            << (a.bubble_ratio ? trace::formatPercent(*a.bubble_ratio) : "-") << ", loss "
            << (result->stepLoss.empty() ? 0.0 : result->stepLoss.front()) << " -> "
            << (result->stepLoss.empty() ? 0.0 : result->stepLoss.back()) << '\n';
  if (o.compareSim && *prediction)
    return reportPrediction(*store, writer->runId(), *built, **prediction, name);
  return kExitOk;
}

}  // namespace

Action addRunCommand(CLI::App& app) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* cmd =
      app.add_subcommand("run", "Train the layered model pipelined by a plan; record it");
  addPlanOptions(*cmd, opt->plan);
  cmd->add_option("--backend", opt->backend, "cpu (threads) or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}));
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
  return [opt]() {
    if (opt->backend == "cuda") {
#ifdef PIPESCOPE_HAVE_CUDA
      auto devices = kernels::cuda::visibleDevices();
      if (!devices) return fail("--backend cuda: " + devices.error(), kExitRunFailed);
      return fail("--backend cuda: the CUDA executor is not part of this build yet",
                  kExitRunFailed);
#else
      return fail("--backend cuda: this pipescope-cli was built without CUDA", kExitRunFailed);
#endif
    }
    return runCpu(*opt);
  };
}

}  // namespace ps::cli
