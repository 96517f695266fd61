#include "trace/analysis/OpWait.h"

#include "trace/Units.h"
#include "trace/analysis/OpRelations.h"

namespace ps::trace {
namespace {

bool isCompute(Lane lane) {
  return lane == Lane::Compute;
}

// The compute op that produced what a receive brought (its send's input); invalid when the
// transfer or its producer was not recorded.
OpRef producerOfReceive(const RunTrace& run, const OpRef& recv) {
  const auto send = matchingTransfer(run, recv);
  if (!send) return {};
  for (const OpRef& in : opInputs(run, *send))
    if (isCompute(in.lane)) return in;
  return {};
}

std::string at(const RunTrace& run, std::int64_t t) {
  return formatDuration(t - run.timeExtent().first);
}

}  // namespace

std::string opTeachLabel(const RunTrace& run, const OpRef& op) {
  const OpColumns& c = run.ranks[op.rank].lane(op.lane);
  std::string label(opKindName(c.kind[op.index]));
  if (c.microbatch[op.index] < 0) return label;
  label += std::to_string(c.microbatch[op.index]);
  const int stages = run.info.num_stages.value_or(0);
  if (stages > run.info.num_ranks && c.stage[op.index] >= 0)
    label += " (stage " + std::to_string(c.stage[op.index]) + ")";
  return label;
}

OpWait explainOpWait(const RunTrace& run, const OpRef& op) {
  OpWait wait;
  if (op.rank < 0 || static_cast<std::size_t>(op.rank) >= run.ranks.size() ||
      op.index >= run.ranks[op.rank].lane(op.lane).size())
    return wait;
  const OpColumns& lane = run.ranks[op.rank].lane(op.lane);
  const std::int64_t start = lane.start[op.index];
  if (op.index > 0) wait.previous = {op.rank, op.lane, op.index - 1};
  bool any = false;
  for (const OpRef& in : opInputs(run, op)) {
    const OpColumns& c = run.ranks[in.rank].lane(in.lane);
    const bool receive = !isCompute(in.lane);
    const OpRef producer = receive ? producerOfReceive(run, in) : in;
    const std::int64_t ready = c.end[in.index];
    if (any && ready <= wait.readyAt) continue;
    any = true;
    wait.readyAt = ready;
    wait.transferred = receive;
    wait.producer = producer.valid() ? producer : in;
  }
  const std::string self = opTeachLabel(run, op) + " on rank " + std::to_string(op.rank);
  // What the rank was doing when the input was there: the op before it, if that ended later.
  std::string prevLabel, prevEnd;
  if (wait.previous.valid()) {
    const std::int64_t end = lane.end[wait.previous.index];
    if ((!any || end > wait.readyAt) && end <= start) {
      prevLabel = opTeachLabel(run, wait.previous);
      prevEnd = at(run, end);
    }
  }
  if (!any) {
    wait.sentence = self + " needs no other op";
    if (lane.kind[op.index] == OpKind::F) wait.sentence += " (the first stage reads the input)";
    wait.sentence += prevLabel.empty() ? ": it starts at " + at(run, start)
                                       : ": it starts when " + prevLabel + " ends at " + prevEnd;
    return wait;
  }
  const OpColumns& p = run.ranks[wait.producer.rank].lane(wait.producer.lane);
  const std::string producer = opTeachLabel(run, wait.producer);
  if (wait.producer.rank == op.rank) {
    wait.sentence = self + " waits for its own " + producer + ", done at " + at(run, wait.readyAt);
  } else {
    const OpKind k = p.kind[wait.producer.index];
    const char* what = k == OpKind::F                       ? "activation"
                       : (k == OpKind::B || k == OpKind::I) ? "gradient"
                                                            : "result";
    wait.sentence = self + " waits for rank " + std::to_string(wait.producer.rank) + "'s " +
                    producer + ": the " + what +
                    (wait.transferred ? " arrives at " : " is ready at ") + at(run, wait.readyAt);
  }
  if (!prevLabel.empty())
    wait.sentence += ", but rank " + std::to_string(op.rank) + " is busy with " + prevLabel +
                     " until " + prevEnd;
  return wait;
}

}  // namespace ps::trace
