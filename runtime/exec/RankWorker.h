#pragma once
// One rank of the cpu (and cuda) backend: runs its program in order on its own thread, against
// what the run's ranks share (ExecShared.h).

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "runtime/exec/ActionMessages.h"
#include "runtime/exec/ExecShared.h"
#include "runtime/model/EmbeddingTable.h"
#include "runtime/model/SyntheticData.h"

namespace ps::runtime {

// The embedding table's rows a run trains: the model's, or a default when the plan fetches
// embeddings (--fetch-mb) and the model names none; 0 = none.
int embeddingRowsFor(const Plan& plan, const ModelConfig& model);

class RankWorker {
 public:
  RankWorker(ExecShared& shared, int rank);
  ~RankWorker();
  // Builds this rank's stage models (called before any thread starts).
  Status createStages();
  // The thread body: runs the program; reports failure through ExecShared::fail.
  void run();
  std::int64_t peakMemory() const { return memory_ ? memory_->peakBytes() : 0; }
  StageModel* stage(int replica, int stage) const;

 private:
  // Runs program[i] (with the step's GNN refresh before it and an inference step's hand-over
  // after it); false when the run ends (this op failed, reported through ExecShared::fail, or the
  // run aborted).
  bool runOp(const std::vector<Action>& program, std::size_t i);
  Status execute(const Action& a);
  Status forward(const Action& a, StageModel& model);
  Status backwardInput(const Action& a, StageModel& model, bool full);
  Status optimizer(const Action& a);
  // Piper's expert parallelism: a stage copy's MoE all-to-all with the same stage's copies in
  // the other replicas, over the transport, recorded as A2A ops (RankWorkerExperts.cpp).
  class StageExperts;
  friend class StageExperts;
  std::map<std::pair<int, int>, std::unique_ptr<StageExperts>> experts_;  // (replica, stage)
  void shareOutExperts(ModelConfig& config, int replica) const;
  void attachExperts(int replica, int stage, StageModel& model);
  // Overlapped all-to-alls (Plan::expertAllToAll.overlap) of experts this rank shares out: its
  // program runs on two OpLanes, one micro-batch's exchange in flight while the next computes.
  bool overlapsExchanges() const;
  // NestPipe's embedding table, sharded over the ranks (RankWorkerEmbedding.cpp): each rank
  // sends stage 0 its rows for a step's tokens once the previous step's update is done; F of
  // stage 0 assembles its input from them, its backward sends each shard its rows' gradients,
  // which the shard adds at its OPT before updating its rows.
  std::unique_ptr<EmbeddingTable> embedding_;
  std::unique_ptr<SyntheticData> embeddingData_;
  [[nodiscard]] Status createEmbedding(const ModelConfig& config);
  void sendEmbeddingRows(int step);
  [[nodiscard]] Result<Tensor> embeddingInput(const Action& a, const StageModel& model);
  void scatterEmbeddingGradients(const Action& a, const Tensor& dInput);
  [[nodiscard]] Status updateEmbedding(const Action& opt);
  std::vector<int> tokenIds(int step, int microbatch) const;
  // GNNPipe's staleness bound (Plan::historyRefresh, RankWorkerGraph.cpp): before every K-th
  // step each stage refreshes its layers' history over the whole graph, taking every node's
  // input from the stage before and sending its output to the stage after.
  [[nodiscard]] Status refreshGraphHistory(int step);
  // HetPipe (Plan::waveStaleness): the update from this replica's own gradients, plus the other
  // replicas' of D steps before (RankWorkerWave.cpp).
  [[nodiscard]] Status waveOptimizerStep(const Action& a);
  // Hands an inference step (forward-only plans have no OPT) over once its last op ran.
  Status endInferenceStep(int step);
  // BPipe: after F, the micro-batch's stash goes to its holder's memory (OFFLOAD); before its
  // first backward op it comes back (RELOAD). Copies on this rank's thread (no copy engine on
  // a cpu). Nothing for activations that stay.
  Status moveActivations(const Action& a, StageModel& model, bool away);
  Result<Tensor> receive(const MessageKey& key, int fromRank, OpKind recvKind, const Action& a);
  // Every wait of the rank for a message or the barrier: outside its lane's hold on the compute
  // (OpLanes::Wait). `arrived`: set to the stamp when the tensor came (before the lane computes
  // again).
  Result<Tensor> awaitTensor(const MessageKey& key, int fromRank, std::int64_t* arrived = nullptr);
  bool awaitBarrier();
  void deliver(const MessageKey& key, int toRank, Tensor tensor, OpKind sendKind, const Action& a);
  // A received activation or gradient of `expected` floats, or an error naming both ranks.
  [[nodiscard]] Status checkReceived(const Tensor& got, long expected, int peer,
                                     const Action& a) const;
  // Stage DAGs (RankWorkerDag.cpp): receives each message and adds it into `sum`; sends a copy
  // of `tensor` along each message.
  [[nodiscard]] Status receiveAndAdd(const std::vector<ActionMessage>& messages, Tensor& sum,
                                     const Action& a);
  void deliverCopies(const std::vector<ActionMessage>& messages, const Tensor& tensor,
                     const StageModel& model, const Action& a);
  void record(OpKind kind, const Action& a, std::int64_t start, std::int64_t end, int peer = -1,
              std::int64_t bytes = -1);
  void sampleMemory(int step);
  // A stamp of the rank's clock: host ns, or a token the clock resolves at hand-over.
  std::int64_t stamp() { return clock_ ? clock_->mark() : s_.nowNs(); }
  // Moves the steps up to `step` (resolved stamps) and `losses` (of `step`) to the collector.
  Status handOver(int step, const std::vector<double>& losses);
  // The losses of `step` on this rank's last stages; `finished`: the step is known to be done
  // on the device (read without waiting for the device's queue).
  std::vector<double> stepLosses(int step, bool finished) const;
  // Resolves the clock's stamps of the recorded steps up to `step` (waiting at most `within`).
  Status resolvePending(int step, std::optional<std::chrono::milliseconds> within);
  // Hands over the deferred steps (device clocks) but the newest `keep`.
  Status handOverDeferred(std::size_t keep, std::optional<std::chrono::milliseconds> within);
  void salvageDeferred();

  ExecShared& s_;
  int rank_;
  std::shared_ptr<MemoryCounter> memory_;
  OpClock* clock_ = nullptr;
  RankStages stages_;  // (replica, stage)
  std::map<std::pair<int, int>, std::shared_ptr<const ParamVersion>> published_;  // 2BW
  std::map<int, trace::TraceBatch> pending_;  // step -> recorded, not yet handed over
  std::deque<int> deferred_;  // device clocks: steps whose OPT ran, handed over a step later
  std::int64_t lastMemory_ = -1;
  std::map<std::pair<int, int>, int> holderOf_;  // BPipe: (stage, micro-batch) -> holder rank
  // XPipe: per (stage, micro-batch, step) the rank's optimizer steps between its F and its
  // backward: how far ahead the forward's weights are predicted.
  std::map<std::tuple<int, int, int>, int> updatesBeforeBackward_;
  // DiffusionPipe (RankWorkerFrozen.cpp): the frozen encoder this rank's FILL ops run, and per
  // (step, micro-batch) the rank whose FILL feeds F(0) of it.
  std::unique_ptr<StageModel> frozen_;
  std::map<std::pair<int, int>, int> fillRankOf_;
  [[nodiscard]] Status createFrozenEncoder(const ModelConfig& config);
  [[nodiscard]] Status frozenForward(const Action& a);
  // F(0)'s input from its FILL, when a FILL feeds it; an empty tensor otherwise.
  [[nodiscard]] Result<Tensor> frozenInput(const Action& a);
};

}  // namespace ps::runtime
