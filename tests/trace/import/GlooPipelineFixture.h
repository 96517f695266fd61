#pragma once
// A hand-written 1F1B pipeline over gloo as the PyTorch profiler writes it in the legacy Kineto
// format (issue 31 §1, last bullet): one file per rank, rank{r}.json, ranks from the file names
// (no distributedInfo), no baseTimeNanoseconds: "ts"/"dur" are integer microseconds, "ts"
// absolute epoch time on the rank's own clock. The user's record_function labels are
// user_annotation ranges; inside each labelled transfer the profiler also shows the c10d call
// (cpu_op "c10d::send" / "c10d::recv_") and gloo's record_function ("gloo:send" / "gloo:recv",
// user_annotation). Sends are isend posts that end in microseconds; receives block until the data
// has landed (send start + wire latency), so the true times obey causality but not "send and
// receive end together".
//
// The run is simulated first (per rank an ordered action list, dependencies through the
// receives), so every true time and transfer is known to the test.

#include <cstdint>
#include <string>
#include <vector>

#include "trace/Result.h"
#include "trace/import/ImportPipeline.h"

namespace ps::trace::import::testing {

enum class GlooLabels {
  TorchPipelining,    // PP:{stage}F{mb}, PP:{stage}SEND_F{mb}, ... (indexed)
  MegatronUnindexed,  // forward-compute, forward-recv, forward-send-backward-recv, ...
};

struct GlooRunSpec {
  GlooLabels labels = GlooLabels::TorchPipelining;
  // Written as the autograd profiler's own export_chrome_trace (a bare array, no "cat", pid
  // "CPU functions") instead of legacy Kineto JSON: c10d's ranges then read as labels too.
  bool autogradExport = false;
  int ranks = 4;
  int microbatches = 6;
  int steps = 3;
  int firstStep = 5;  // ProfilerStep#5, #6, ...
  // Each rank's clock: local = true + skewNs[r] (whole microseconds).
  std::vector<std::int64_t> skewNs{0, 3'217'000, -1'734'000, 5'861'000};
  std::int64_t fwdNs = 2'000'000;
  std::int64_t bwdNs = 4'000'000;
  // Per rank, compute time over the others': the last stage holds the head and the loss, so
  // its neighbour waits on its gradients while its activations wait for it.
  std::vector<double> computeScale{1.0, 1.0, 1.0, 1.4};
  std::int64_t optNs = 1'000'000;
  std::int64_t postNs = 21'000;      // an isend / irecv post
  std::int64_t latencyNs = 150'000;  // send start to data landed (plus up to 80 µs of jitter)
  std::int64_t gapNs = 9'000;        // host time between two actions
};

// One transfer as it really happened, on the true clock.
struct GlooTransfer {
  int src = 0, dst = 0;
  bool forward = true;  // activations (SEND_F/RECV_F) or gradients (SEND_B/RECV_B)
  int step = 0;         // 0-based
  int microbatch = 0;
  std::int64_t sendStart = 0;
  std::int64_t recvEnd = 0;
};

struct GlooRun {
  std::vector<std::string> files;  // rank0.json ... in rank order
  std::vector<GlooTransfer> transfers;
  // Per rank, the offset that puts the rank on rank 0's clock: skew[0] - skew[r].
  std::vector<std::int64_t> trueOffsetNs;
};

// Simulates the run and writes the files under `dir`. Errors when the simulation deadlocks
// (a bad spec) or a file cannot be written.
[[nodiscard]] ps::Result<GlooRun> writeGlooPipeline(const std::string& dir,
                                                    const GlooRunSpec& spec);

struct ImportedGloo {
  GlooRun truth;
  ImportedRun run;
};

// writeGlooPipeline, then the files read and assembled as `import kineto` does by default.
[[nodiscard]] ps::Result<ImportedGloo> importGlooPipeline(const std::string& dir,
                                                          const GlooRunSpec& spec);

}  // namespace ps::trace::import::testing
