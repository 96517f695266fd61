// RankWorker's share of NestPipe's embedding table (a plan with --fetch-mb): the table's rows are
// sharded over every rank of the pipeline, the first stage's input is their rows for the
// micro-batch's tokens, and the rows train with the model. The token ids are synthetic, so every
// rank knows which of its rows each micro-batch needs: a rank sends them to stage 0 for a whole
// step as soon as its rows are up to date (the run's start, then its OPT), stage 0's F gathers
// them, its backward returns each shard its rows' gradients, and the shard updates its rows at
// its OPT. A row crosses once per micro-batch however many of its tokens use it (its gradient
// summed over them first), so key-centric clustering (Plan::clusterKeys) moves fewer bytes. Same
// weights and losses as the whole table in one place (the reference trainer).

#include "runtime/exec/RankWorker.h"

namespace ps::runtime {
namespace {

// The table a plan's fetch trains when the model names none.
constexpr int kDefaultEmbeddingRows = 1024;

// Every rank sends stage 0 a part of the same micro-batch: the sender is in the key (MPI tells
// them apart by source; a thread's mailbox by key).
MessageKey embeddingKey(bool gradient, int microbatch, int step, int sender) {
  return {gradient, 0, 0, microbatch, step, 0, MessageKey::kEmbeddingTag - sender};
}

}  // namespace

Status RankWorker::createEmbedding(const ModelConfig& config) {
  if (config.embeddingRows <= 0) return {};
  auto table =
      EmbeddingTable::create(config, s_.plan->numRanks, rank_, s_.options->optimizer, memory_);
  if (!table) return Error{"rank " + std::to_string(rank_) + ": " + table.error()};
  embedding_ = std::move(*table);
  embeddingData_ = std::make_unique<SyntheticData>(config);
  return {};
}

int embeddingRowsFor(const Plan& plan, const ModelConfig& model) {
  if (plan.embeddingFetch.bytes <= 0) return model.embeddingRows;
  return model.embeddingRows > 0 ? model.embeddingRows : kDefaultEmbeddingRows;
}

std::vector<int> RankWorker::tokenIds(int step, int microbatch) const {
  std::vector<int> ids(static_cast<std::size_t>(s_.options->model.rows()));
  embeddingData_->tokenIds({step, microbatch}, ids.data());
  return ids;
}

void RankWorker::sendEmbeddingRows(int step) {
  if (!embedding_) return;
  const Plan& plan = *s_.plan;
  for (int m = 0; m < plan.numMicrobatches(); ++m) {
    const int to = plan.rankOf(0, m);
    if (to == rank_) continue;
    const Action a{OpKind::A2A, 0, m, step};
    const std::vector<int> keys = heldKeys(tokenIds(step, m), plan.numRanks, rank_);
    Tensor rows = Tensor::fromHost(memory_, embedding_->gather(keys));
    const std::int64_t bytes = rows.bytes();
    const TransferStamps t =
        s_.transport->send(embeddingKey(false, m, step, rank_), rank_, to, std::move(rows));
    record(OpKind::A2A, a, t.start, t.end, to, bytes);
  }
}

Result<Tensor> RankWorker::embeddingInput(const Action& a, const StageModel& model) {
  if (!embedding_ || a.stage != 0) return Tensor();
  const std::vector<int> ids = tokenIds(a.step, a.microbatch);
  Tensor input = model.newBoundaryTensor({a.step, a.microbatch});
  const int hidden = s_.options->model.hidden, shards = s_.plan->numRanks;
  const std::vector<int> own = heldKeys(ids, shards, rank_);
  scatterRows(ids, own, embedding_->gather(own).data(), hidden, input.data());
  const std::int64_t start = stamp();
  std::int64_t bytes = 0;
  for (int r = 0; r < shards; ++r) {
    if (r == rank_) continue;
    auto rows = awaitTensor(embeddingKey(false, a.microbatch, a.step, r), r);
    if (!rows) return std::move(rows).takeError();
    const std::vector<int> keys = heldKeys(ids, shards, r);
    PS_TRY(checkReceived(*rows, static_cast<long>(keys.size()) * hidden, r, a));
    bytes += rows->bytes();
    scatterRows(ids, keys, rows->data(), hidden, input.data());
  }
  record(OpKind::A2A, {OpKind::A2A, 0, a.microbatch, a.step}, start, stamp(), -1, bytes);
  return input;
}

void RankWorker::scatterEmbeddingGradients(const Action& a, const Tensor& dInput) {
  if (!embedding_ || a.stage != 0 || dInput.empty()) return;
  const std::vector<int> ids = tokenIds(a.step, a.microbatch);
  const int shards = s_.plan->numRanks, hidden = s_.options->model.hidden;
  for (int r = 0; r < shards; ++r) {
    const std::vector<int> keys = heldKeys(ids, shards, r);
    std::vector<float> sums = sumRowsByKey(ids, keys, dInput.data(), hidden);
    if (r == rank_) {
      embedding_->addGradients(keys, sums.data());
      continue;
    }
    Tensor t = Tensor::fromHost(memory_, sums);
    s_.transport->send(embeddingKey(true, a.microbatch, a.step, rank_), rank_, r, std::move(t));
  }
}

Status RankWorker::updateEmbedding(const Action& opt) {
  if (!embedding_) return {};
  const Plan& plan = *s_.plan;
  for (int m = 0; m < plan.numMicrobatches(); ++m) {
    const int from = plan.rankOf(0, m);
    if (from == rank_) continue;  // added at its backward
    auto grads = awaitTensor(embeddingKey(true, m, opt.step, from), from);
    if (!grads) return std::move(grads).takeError();
    const std::vector<int> keys = heldKeys(tokenIds(opt.step, m), plan.numRanks, rank_);
    PS_TRY(checkReceived(*grads, static_cast<long>(keys.size()) * s_.options->model.hidden, from,
                         opt));
    embedding_->addGradients(keys, grads->data());
  }
  embedding_->step();
  if (opt.step + 1 < plan.steps) sendEmbeddingRows(opt.step + 1);
  return {};
}

}  // namespace ps::runtime
