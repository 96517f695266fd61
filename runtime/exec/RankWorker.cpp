#include "runtime/exec/RankWorker.h"

#include <exception>

#include "runtime/exec/ActionMessages.h"
#include "runtime/exec/ComputeStretch.h"
#include "runtime/exec/CpuExecutor.h"
#include "runtime/exec/OpLanes.h"
#include "runtime/exec/OpRange.h"

namespace ps::runtime {

Status RankWorker::createStages() {
  const Plan& plan = *s_.plan;
  const auto perRank = [&](const auto& v) {
    return v.size() > static_cast<std::size_t>(rank_) ? v[rank_] : nullptr;
  };
  memory_ = std::make_shared<MemoryCounter>(perRank(s_.devices));
  if (s_.rankMemory.size() < static_cast<std::size_t>(plan.numRanks))
    s_.rankMemory.resize(plan.numRanks);
  s_.rankMemory[rank_] = memory_;
  ModelConfig config = s_.options->model;
  config.layers = plan.numLayers;
  config.embeddingRows = embeddingRowsFor(plan, config);
  config.historyRefresh = plan.historyRefresh;
  if (plan.clusterKeys) config.clusterKeys = plan.numMicrobatches();
  for (int r = 0; r < plan.numReplicas(); ++r)
    for (int st = 0; st < plan.numStages; ++st) {
      const StagePlacement& place = plan.placement[r][st];
      if (place.rank != rank_) continue;
      ModelConfig stageConfig = config;
      shareOutExperts(stageConfig, r);
      StageOptions options;
      options.firstLayer = place.firstLayer;
      options.lastLayer = place.lastLayer;
      options.microbatchesPerStep = plan.numMicrobatches();
      options.optimizer = s_.options->optimizer;
      options.memory = memory_;
      options.inference = plan.forwardOnly;
      options.source = plan.predecessors(st).empty();
      options.tokens = s_.options->tokens;
      auto model = StageModel::create(stageConfig, options);
      if (!model) return Error{"rank " + std::to_string(rank_) + ": " + model.error()};
      attachExperts(r, st, **model);
      if (plan.versioning == WeightVersioning::Reconstructed)
        (*model)->averageUpdates(s_.options->weightAverageBeta);
      if (plan.versioning == WeightVersioning::DoubleBuffered)
        published_[{r, st}] = (*model)->snapshot();
      s_.stageModels[{r, st}] = model->get();
      stages_[{r, st}] = std::move(*model);
    }
  for (const ActivationMove& m : plan.activationMoves)
    if (plan.rankOf(m.stage, m.microbatch) == rank_) holderOf_[{m.stage, m.microbatch}] = m.holder;
  PS_TRY(createFrozenEncoder(config));
  PS_TRY(createEmbedding(config));
  if (plan.versioning == WeightVersioning::Predicted) {
    std::map<std::tuple<int, int, int>, int> optsAtForward;
    int opts = 0;
    for (const Action& a : plan.programs[static_cast<std::size_t>(rank_)]) {
      const std::tuple<int, int, int> id{a.stage, a.microbatch, a.step};
      if (a.kind == OpKind::OPT) ++opts;
      if (a.kind == OpKind::F) optsAtForward[id] = opts;
      if ((a.kind == OpKind::B || a.kind == OpKind::I) && optsAtForward.contains(id))
        updatesBeforeBackward_[id] = opts - optsAtForward[id];
    }
  }
  return {};
}

StageModel* RankWorker::stage(int replica, int st) const {
  auto it = stages_.find({replica, st});
  return it == stages_.end() ? nullptr : it->second.get();
}

void RankWorker::record(OpKind kind, const Action& a, std::int64_t start, std::int64_t end,
                        int peer, std::int64_t bytes) {
  // --rank-speed on the host clock (the cpu backend): the op's real work is done; wait out the
  // rest of its stretched time before anything else runs on this rank.
  const auto& stretch = s_.options->computeStretch;
  if (!clock_ && trace::isCompute(kind) && static_cast<std::size_t>(rank_) < stretch.size())
    end = stretchCompute(start, end, stretch[rank_], [this] { return s_.nowNs(); });
  trace::OpRecord op;
  op.rank = rank_;
  op.kind = kind;
  if (a.stage >= 0) op.stage = a.stage;
  if (a.microbatch >= 0) op.microbatch = a.microbatch;
  op.step = a.step;
  op.start_ns = start;
  op.end_ns = end;
  if (peer >= 0) op.peer_rank = peer;
  if (bytes >= 0) op.bytes = bytes;
  pending_[a.step].ops.push_back(std::move(op));
}

void RankWorker::sampleMemory(int step) {
  const std::int64_t bytes = memory_->bytesInUse();
  if (bytes == lastMemory_) return;
  lastMemory_ = bytes;
  pending_[step].memory.push_back({rank_, stamp(), bytes});
}

Result<Tensor> RankWorker::awaitTensor(const MessageKey& key, int fromRank, std::int64_t* arrived) {
  OpLanes::Wait wait;  // the other lane computes meanwhile
  auto tensor = s_.transport->receive(key, fromRank, rank_, memory_);
  if (arrived) *arrived = stamp();
  return tensor;
}

bool RankWorker::awaitBarrier() {
  OpLanes::Wait wait;
  return s_.transport->barrier(rank_);
}

Result<Tensor> RankWorker::receive(const MessageKey& key, int fromRank, OpKind recvKind,
                                   const Action& a) {
  // Same rank: a hand-over, not a transfer; no stamp (a device clock's stamp must be recorded,
  // or its event stays in flight for good).
  const bool transfer = fromRank != rank_;
  ScopedRange range(transfer ? clock_ : nullptr, recvKind, a);
  const std::int64_t start = transfer ? stamp() : 0;
  std::int64_t end = 0;
  auto tensor = awaitTensor(key, fromRank, transfer ? &end : nullptr);
  if (!tensor || !transfer) return tensor;
  record(recvKind, a, start, end, fromRank, tensor->bytes());
  return tensor;
}

void RankWorker::deliver(const MessageKey& key, int toRank, Tensor tensor, OpKind sendKind,
                         const Action& a) {
  ScopedRange range(toRank == rank_ ? nullptr : clock_, sendKind, a);
  const std::int64_t bytes = tensor.bytes();
  const TransferStamps t = s_.transport->send(key, rank_, toRank, std::move(tensor));
  if (toRank != rank_) record(sendKind, a, t.start, t.end, toRank, bytes);
}

Status RankWorker::forward(const Action& a, StageModel& model) {
  const int replica = s_.plan->replicaOf(a.microbatch);
  const MicrobatchKey key{a.step, a.microbatch};
  const ActionMessages messages = actionMessages(*s_.plan, a);
  auto frozen = frozenInput(a);
  if (!frozen) return std::move(frozen).takeError();
  Tensor in = std::move(*frozen);
  if (embedding_ && a.stage == 0) {  // NestPipe: the table's rows for the tokens
    auto rows = embeddingInput(a, model);
    if (!rows) return std::move(rows).takeError();
    in = std::move(*rows);
  }
  if (!model.isFirst() && messages.receive) {
    const ActionMessage& m = *messages.receive;
    auto got = receive(m.key, m.peer, m.kind, a);
    if (!got) return std::move(got).takeError();
    in = std::move(*got);
    PS_TRY(checkReceived(in, model.boundaryElems(key), m.peer, a));
    PS_TRY(receiveAndAdd(messages.moreReceives, in, a));  // a DAG's join: the sum of its inputs
  }
  Tensor out;
  if (!model.isLast()) out = model.newBoundaryTensor(key);
  std::shared_ptr<const ParamVersion> version;
  if (s_.plan->versioning == WeightVersioning::Stashed ||
      s_.plan->versioning == WeightVersioning::Blended)
    version = model.snapshot();
  if (s_.plan->versioning == WeightVersioning::DoubleBuffered)
    version = published_[{replica, a.stage}];
  const bool predicted = s_.plan->versioning == WeightVersioning::Predicted;
  if (predicted) {
    const auto it = updatesBeforeBackward_.find({a.stage, a.microbatch, a.step});
    version = model.predictedSnapshot(it == updatesBeforeBackward_.end() ? 0 : it->second);
  }
  {
    ScopedRange range(clock_, OpKind::F, a);
    const std::int64_t start = stamp();
    PS_TRY(model.forward(key, in.empty() ? nullptr : in.data(), out.empty() ? nullptr : out.data(),
                         version, predicted));
    if (s_.plan->recompute) PS_TRY(model.dropActivations(key));
    record(OpKind::F, a, start, stamp());
  }
  in.reset();
  sampleMemory(a.step);
  deliverCopies(messages.moreSends, out, model, a);
  if (messages.send)
    deliver(messages.send->key, messages.send->peer, std::move(out), OpKind::SEND_F, a);
  return moveActivations(a, model, true);
}

Status RankWorker::moveActivations(const Action& a, StageModel& model, bool away) {
  const auto it = holderOf_.find({a.stage, a.microbatch});
  if (it == holderOf_.end()) return {};
  const int holder = it->second;
  const auto& holderMemory = s_.rankMemory[static_cast<std::size_t>(holder)];
  if (!holderMemory)
    return Error{"activation holder rank " + std::to_string(holder) + " has no memory"};
  const OpKind kind = away ? OpKind::OFFLOAD : OpKind::RELOAD;
  ScopedRange range(clock_, kind, a);
  const std::int64_t start = stamp();
  auto moved = model.moveActivations({a.step, a.microbatch}, away ? holderMemory : memory_);
  if (!moved) return std::move(moved).takeError();
  const std::int64_t end = stamp();
  record(kind, a, start, end, holder, *moved);
  sampleMemory(a.step);
  // The holder's memory changed on this thread: its own samples would show it only later.
  pending_[a.step].memory.push_back({holder, end, holderMemory->bytesInUse()});
  return {};
}

Status RankWorker::backwardInput(const Action& a, StageModel& model, bool full) {
  const MicrobatchKey key{a.step, a.microbatch};
  const ActionMessages messages = actionMessages(*s_.plan, a);
  Tensor dOut;
  if (!model.isLast() && messages.receive) {
    const ActionMessage& m = *messages.receive;
    auto got = receive(m.key, m.peer, m.kind, a);
    if (!got) return std::move(got).takeError();
    dOut = std::move(*got);
    PS_TRY(checkReceived(dOut, model.boundaryElems(key), m.peer, a));
    PS_TRY(receiveAndAdd(messages.moreReceives, dOut, a));  // a DAG's fork: gradients add up
  }
  Tensor dIn;
  // NestPipe: the first stage's input gradient goes back to the embedding table's rows.
  if (!model.isFirst() || (embedding_ && a.stage == 0)) dIn = model.newBoundaryTensor(key);
  {
    const OpKind kind = full ? OpKind::B : OpKind::I;
    ScopedRange range(clock_, kind, a);
    const std::int64_t start = stamp();
    float* dOutPtr = dOut.empty() ? nullptr : dOut.data();
    float* dInPtr = dIn.empty() ? nullptr : dIn.data();
    // LayerPipe2: the backward runs on its forward's weights, rebuilt from the average update.
    if (s_.plan->versioning == WeightVersioning::Reconstructed)
      PS_TRY(model.rebuildForwardWeights(key));
    if (s_.plan->versioning == WeightVersioning::Blended)
      PS_TRY(model.blendStashWithLive(key, s_.options->stashBlendDecay));
    PS_TRY(full ? model.backward(key, dOutPtr, dInPtr) : model.backwardInput(key, dOutPtr, dInPtr));
    record(kind, a, start, stamp());
  }
  dOut.reset();
  if (embedding_ && a.stage == 0) {
    scatterEmbeddingGradients(a, dIn);
    dIn.reset();
  }
  sampleMemory(a.step);
  if (!dIn.empty()) deliverCopies(messages.moreSends, dIn, model, a);
  if (messages.send && !dIn.empty())
    deliver(messages.send->key, messages.send->peer, std::move(dIn), OpKind::SEND_B, a);
  return {};
}

Status RankWorker::optimizer(const Action& a) {
  const Plan& plan = *s_.plan;
  const bool wave = plan.waveStaleness >= 0;
  const bool replicated = plan.numReplicas() > 1 && !wave;
  if ((plan.optimizerSync == OptimizerSync::Barrier && !wave) || replicated)
    if (!awaitBarrier()) return Error{"aborted"};
  if (replicated) {
    // Replicas of a stage hold the same weights: exchange (sum) their gradients.
    ScopedRange range(clock_, OpKind::AR, a);
    const std::int64_t start = stamp();
    PS_TRY(s_.transport->sumReplicaGradients(rank_, stages_));
    record(OpKind::AR, a, start, stamp());
    if (!awaitBarrier()) return Error{"aborted"};
  }
  ScopedRange range(clock_, OpKind::OPT, a);
  const std::int64_t start = stamp();
  // On the host the losses are read now; on a device only once the step is known to be done.
  const std::vector<double> losses = clock_ ? std::vector<double>{} : stepLosses(a.step, false);
  if (wave) PS_TRY(waveOptimizerStep(a));
  for (auto& [id, model] : stages_) {
    if (!wave) model->optimizerStep();  // the wave step ran it after adding the gradients
    if (plan.versioning == WeightVersioning::DoubleBuffered) published_[id] = model->snapshot();
  }
  PS_TRY(updateEmbedding(a));  // NestPipe: this rank's rows, then the next step's to stage 0
  record(OpKind::OPT, a, start, stamp());
  sampleMemory(a.step);
  if (!clock_) return handOver(a.step, losses);
  // A device runs behind the host: hand step k over at step k+1's end, when its events are long
  // complete, so resolving them never waits for the GPU to drain.
  deferred_.push_back(a.step);
  return handOverDeferred(1, std::nullopt);
}

Status RankWorker::execute(const Action& a) {
  if (a.kind == OpKind::OPT) return optimizer(a);
  if (a.kind == OpKind::FILL) {
    if (a.stage >= 0) return frozenForward(a);
    record(OpKind::FILL, a, stamp(), stamp());  // imported work without a model
    return {};
  }
  const int replica = s_.plan->replicaOf(a.microbatch);
  StageModel* model = stage(replica, a.stage);
  if (!model) return Error{"holds no model for stage " + std::to_string(a.stage)};
  const MicrobatchKey key{a.step, a.microbatch};
  const auto reportVersion = [&] {
    if (s_.options->onWeightVersion)
      s_.options->onWeightVersion(rank_, a, model->versionUsed(key).value_or(-2), model->version());
  };
  switch (a.kind) {
    case OpKind::F:
      PS_TRY(forward(a, *model));
      reportVersion();
      return {};
    case OpKind::B:
      reportVersion();
      PS_TRY(moveActivations(a, *model, false));
      return backwardInput(a, *model, true);
    case OpKind::I:
      reportVersion();
      PS_TRY(moveActivations(a, *model, false));
      return backwardInput(a, *model, false);
    case OpKind::W: {
      ScopedRange range(clock_, OpKind::W, a);
      const std::int64_t start = stamp();
      PS_TRY(model->backwardWeight(key));
      record(OpKind::W, a, start, stamp());
      sampleMemory(a.step);
      return {};
    }
    case OpKind::R: {
      ScopedRange range(clock_, OpKind::R, a);
      const std::int64_t start = stamp();
      PS_TRY(model->recompute(key));
      record(OpKind::R, a, start, stamp());
      sampleMemory(a.step);
      return {};
    }
    default:
      return Error{"cannot execute " + actionLabel(a)};
  }
}

void RankWorker::salvageDeferred() {
  // The run is over: completed steps the device still held are kept if their events finish
  // within a moment (a cancelled run's GPU is fine; a failed one may never answer).
  try {
    (void)handOverDeferred(0, std::chrono::milliseconds(100));
  } catch (const std::exception&) {  // a failed device: those steps are lost, as they are
  }
}

bool RankWorker::runOp(const std::vector<Action>& program, std::size_t i) {
  const Action& a = program[i];
  if (s_.abort) return false;
  Status status;
  try {
    if (s_.options->beforeAction) s_.options->beforeAction(rank_, a);
    // GNNPipe's staleness bound: the graph's history made current before the step's first op.
    if (i == 0 || program[i - 1].step != a.step) status = refreshGraphHistory(a.step);
    if (status) status = execute(a);
    // An inference step has no OPT to end it: it ends with the rank's last op of the step.
    if (status && s_.plan->forwardOnly &&
        (i + 1 == program.size() || program[i + 1].step != a.step))
      status = endInferenceStep(a.step);
  } catch (const std::exception& e) {
    status = Error{e.what()};
  } catch (...) {
    status = Error{"unknown exception"};
  }
  if (!status && !s_.abort)
    s_.fail("rank " + std::to_string(rank_) + ": " + actionLabel(a) + ": " + status.error());
  return static_cast<bool>(status);
}

void RankWorker::run() {
  // Clocks are pinned to the run's start, made after the stages: read here, not at creation.
  if (s_.clocks.size() > static_cast<std::size_t>(rank_)) clock_ = s_.clocks[rank_];
  lastMemory_ = memory_->bytesInUse();
  pending_[0].memory.push_back({rank_, clock_ ? clock_->mark() : 0, lastMemory_});
  const std::vector<Action>& program = s_.plan->programs[rank_];
  sendEmbeddingRows(0);  // NestPipe: the first step's rows to stage 0
  bool ran = true;
  if (overlapsExchanges()) {
    if (Status lanes = s_.transport->allowsLanes(); !lanes) {
      s_.fail("rank " + std::to_string(rank_) + ": " + lanes.error());
      return;
    }
    ran = OpLanes(program, s_.abort).run([&](std::size_t i) { return runOp(program, i); });
  } else {
    for (std::size_t i = 0; i < program.size() && ran; ++i)
      ran = runOp(program, i);
  }
  if (!ran) return salvageDeferred();
  // Steps a device still held, then (plans without OPT) everything else.
  Status status = handOverDeferred(0, std::nullopt);
  if (status && !pending_.empty()) {
    const int last = pending_.rbegin()->first;
    if (clock_) status = resolvePending(last, std::nullopt);
    if (status) status = handOver(last, {});
  }
  if (!status && !s_.abort) s_.fail("rank " + std::to_string(rank_) + ": " + status.error());
}

}  // namespace ps::runtime
