#include "runtime/run/BackendRefusals.h"

#include <string>

#include "runtime/run/Backends.h"

namespace ps::runtime {
namespace {

bool hasFrozenFill(const Plan& plan) {
  for (const auto& program : plan.programs)
    for (const Action& a : program)
      if (a.kind == OpKind::FILL && a.stage >= 0) return true;
  return false;
}

// Micro-batches of their own shapes run on the host (threads or processes), never with a
// frozen encoder (its output has the model's one shape); a plan that scales or slices its
// micro-batches without saying how (none of the generators) cannot be trained.
Status checkTokenLayouts(const BackendInfo& backend, const Plan& plan, bool frozen,
                         const std::shared_ptr<const TokenLayouts>& tokens) {
  const std::string name(backend.name);
  bool sliced = false, scaled = false;
  for (const MicrobatchSpec& mb : plan.microbatches) {
    sliced = sliced || mb.sliceOf >= 0;
    scaled = scaled || mb.costScale != 1.0;
  }
  const std::string flag = sliced ? "--token-slices" : "--seq-lengths";
  // Whether or not the host could lay these micro-batches out, this backend cannot.
  if (!backend.limits.shapedMicrobatches && (tokens || sliced || scaled))
    return Error{flag + ": the " + name + " backend runs micro-batches of one shape (--mb-size, " +
                 "--seq); run --backend cpu, or simulate with --backend sim"};
  if (!tokens) {
    if (sliced || scaled)
      return Error{flag + ": this plan's micro-batches have no token layout to train (simulate " +
                   "it: --backend sim)"};
    return {};
  }
  if (frozen)
    return Error{flag + ": not with a frozen encoder (--frozen-us) on the " + name + " backend"};
  return {};
}

// TeraPipe's slices or DynaPipe's groups: micro-batches not of the model's one shape.
bool reshapesMicrobatches(const Plan& plan) {
  for (const MicrobatchSpec& mb : plan.microbatches)
    if (mb.sliceOf >= 0 || mb.costScale != 1.0) return true;
  return false;
}

// HetPipe's replicas each with its own cut (--own-cuts).
bool ownCuts(const Plan& plan) {
  for (const auto& replica : plan.placement)
    for (std::size_t s = 0; s < replica.size() && s < plan.placement[0].size(); ++s)
      if (replica[s].firstLayer != plan.placement[0][s].firstLayer) return true;
  return false;
}

}  // namespace

Status checkPlanFeatures(Backend backend, bool processes, const Plan& plan,
                         const std::shared_ptr<const TokenLayouts>& tokens) {
  const BackendInfo& row = backendInfo(backend);
  const std::string name(row.name);
  const bool threadsOnly = !row.limits.sharedMemoryRanks || processes;
  // BPipe's copies between ranks' memory: threads share one address space; processes and GPUs
  // would need the copies sent, which they do not do yet.
  if (!plan.activationMoves.empty() && threadsOnly)
    return Error{"--balance-activations: the " + name +
                 " backend moves activations between rank threads only (run --backend cpu "
                 "without --procs, or --backend sim)"};
  const bool frozen = hasFrozenFill(plan);
  PS_TRY(checkTokenLayouts(row, plan, frozen, tokens));
  if (!plan.stagePreds.empty() && threadsOnly)
    return Error{"--stage-graph: the " + name +
                 " backend runs chains of stages only; stage DAGs run on rank threads (--backend "
                 "cpu without --procs) or in the simulator"};
  // Piper's all-to-all carries the cpu backend's MoE tokens (checkModelFeatures says which
  // model); NestPipe's fetch its embedding table's rows.
  if ((plan.expertAllToAll.bytes > 0 || plan.embeddingFetch.bytes > 0) && backend != Backend::Cpu)
    return Error{std::string(plan.expertAllToAll.bytes > 0 ? "--a2a-mb" : "--fetch-mb") + ": the " +
                 name +
                 " backend's model has no experts or embedding tables yet (simulate it: "
                 "--backend sim)"};
  // The host sums each layer's gradients over the replicas however they are cut; the cuda
  // backend sums each stage with its twin stage's: one cut.
  if (ownCuts(plan) && backend != Backend::Cpu)
    return Error{"--own-cuts: the " + name +
                 " backend averages each stage's gradients with the other replicas' same stage, "
                 "which needs one cut for every replica (run --backend cpu, or simulate it: "
                 "--backend sim)"};
  // HetPipe's updates between replicas go through the rank threads' shared memory.
  if (plan.waveStaleness >= 0 && (backend != Backend::Cpu || processes))
    return Error{"--staleness: the " + name +
                 " backend exchanges the replicas' updates between rank threads only (run "
                 "--backend cpu without --procs, or --backend sim)"};
  // DawnPiper's operator cut: a block of the model is one piece of code, not K.
  if (plan.operatorsPerLayer > 1)
    return Error{"--operators " + std::to_string(plan.operatorsPerLayer) + ": the " + name +
                 " backend's model blocks are not cut inside (simulate it: --backend sim)"};
  // DiffusionPipe's frozen encoder hands its output to stage 0 between rank threads.
  if (frozen && threadsOnly)
    return Error{"--frozen-us: the " + name +
                 " backend runs the frozen encoder on rank threads only (run --backend cpu "
                 "without --procs, or --backend sim)"};
  // What the backend refuses of its own (cuda: more than two replicas).
  if (row.refusePlan) PS_TRY(row.refusePlan(plan, processes));
  return {};
}

Status checkModelFeatures(const Plan& plan, const ModelConfig& model) {
  if (plan.historyRefresh > 0 && model.block != BlockType::Gnn)
    return Error{"--history-refresh " + std::to_string(plan.historyRefresh) +
                 ": refreshes a graph model's historical embeddings (--model gnn, not " +
                 std::string(blockTypeName(model.block)) + ")"};
  if (plan.historyRefresh > 0 && !plan.stagePreds.empty())
    return Error{"--history-refresh " + std::to_string(plan.historyRefresh) +
                 ": the refresh passes the graph down a chain of stages (not --stage-graph)"};
  if (model.block == BlockType::Gnn) {
    if (plan.numReplicas() > 1)
      return Error{
          "--model gnn: the graph's chunks are one pipeline's micro-batches, each stage "
          "holding every node's history (not with --dp or bidirectional schedules)"};
    if (reshapesMicrobatches(plan))
      return Error{
          "--model gnn: every chunk has the same nodes count (not with --token-slices "
          "or --seq-lengths)"};
  }
  if (plan.embeddingFetch.bytes > 0) {
    const std::string flag = "--fetch-mb: ";
    if (plan.numReplicas() > 1)
      return Error{flag +
                   "the cpu backend shards its embedding table over one pipeline's ranks "
                   "(not with --dp or bidirectional schedules)"};
    if (reshapesMicrobatches(plan))
      return Error{flag +
                   "every micro-batch's tokens look up the table: not with "
                   "--token-slices or --seq-lengths"};
    if (!plan.stagePreds.empty() || hasFrozenFill(plan))
      return Error{flag +
                   "the embedding rows feed the first stage of a chain (not with "
                   "--stage-graph or --frozen-us)"};
  }
  if (plan.expertAllToAll.bytes <= 0) return {};
  const std::string flag = "--a2a-mb: ";
  if (model.block != BlockType::Moe)
    return Error{flag +
                 "the cpu backend's all-to-all sends a mixture-of-experts model's tokens "
                 "to their experts (--model moe), not the " +
                 std::string(blockTypeName(model.block)) + " model's"};
  if (model.experts % plan.numReplicas() != 0)
    return Error{flag + "the " + std::to_string(model.experts) +
                 " experts do not share out evenly over the " + std::to_string(plan.numReplicas()) +
                 " replicas"};
  if (plan.recompute)
    return Error{flag + "not with --recompute (recomputing a forward would send its tokens again)"};
  if (ownCuts(plan))
    return Error{flag +
                 "not with --own-cuts (an expert's copies are in the same stage of every "
                 "replica)"};
  return {};
}

}  // namespace ps::runtime
