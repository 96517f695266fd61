#include "trace/analysis/RunExplanation.h"

#include "trace/analysis/CriticalPath.h"
#include "trace/analysis/StepGraph.h"

namespace ps::trace {

RunExplanation explainRun(const RunTrace& run) {
  const StepGraph graph(run);
  BubbleAttribution bubbles = attributeBubbles(graph);
  RunExplanation out;
  out.ranks = std::move(bubbles.ranks);
  out.run = bubbles.run;
  out.spanSumNs = bubbles.spanSumNs;
  if (const auto path = longestStepCriticalPath(graph)) {
    RunExplanation::Path p{path->step, path->lengthNs, {}};
    p.ops.reserve(path->ops.size());
    for (const OpRef& ref : path->ops) {
      const OpColumns& c = run.ranks[ref.rank].lane(ref.lane);
      p.ops.push_back({ref.rank, c.kind[ref.index], c.stage[ref.index], c.microbatch[ref.index],
                       c.start[ref.index], c.end[ref.index]});
    }
    out.criticalPath = std::move(p);
  }
  return out;
}

std::string pathOpLabel(const PathOp& op) {
  std::string kind(opKindName(op.kind));
  if (op.stage < 0 || op.microbatch < 0) return kind;
  return std::to_string(op.stage) + kind + std::to_string(op.microbatch);
}

}  // namespace ps::trace
