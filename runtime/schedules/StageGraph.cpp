#include "runtime/schedules/StageGraph.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "runtime/schedules/CommaList.h"
#include "runtime/schedules/ListScheduler.h"

namespace ps::runtime {

Result<std::vector<std::vector<int>>> parseStageGraph(const std::string& text, int stages) {
  const std::string flag = "--stage-graph " + text + ": ";
  std::vector<std::vector<int>> preds(static_cast<std::size_t>(stages));
  std::vector<bool> hasSucc(static_cast<std::size_t>(stages), false);
  auto edges = splitCommaList(text, "--stage-graph");  // "0>1,,1>2" refused by name
  if (!edges) return std::move(edges).takeError();
  for (const std::string& edge : *edges) {
    const auto gt = edge.find('>');
    int a = -1, b = -1;
    char tail = 0;
    if (gt == std::string::npos || std::sscanf(edge.c_str(), "%d>%d%c", &a, &b, &tail) != 2)
      return Error{flag + "expected edges like 0>2,1>2 (\"" + edge + "\")"};
    if (a < 0 || b >= stages || a >= b)
      return Error{flag + "edge " + edge + " must go from a lower stage to a higher one in 0.." +
                   std::to_string(stages - 1)};
    auto& list = preds[static_cast<std::size_t>(b)];
    if (std::find(list.begin(), list.end(), a) != list.end())
      return Error{flag + "edge " + edge + " appears twice"};
    list.push_back(a);
    hasSucc[static_cast<std::size_t>(a)] = true;
  }
  for (int s = 0; s + 1 < stages; ++s)
    if (!hasSucc[static_cast<std::size_t>(s)])
      return Error{flag + "stage " + std::to_string(s) +
                   " leads nowhere (every stage but the last, " + std::to_string(stages - 1) +
                   ", needs a successor)"};
  for (auto& list : preds)
    std::sort(list.begin(), list.end());
  return preds;
}

std::string stageGraphText(const std::vector<std::vector<int>>& preds) {
  std::vector<std::pair<int, int>> edges;
  for (std::size_t b = 0; b < preds.size(); ++b)
    for (int a : preds[b])
      edges.emplace_back(a, static_cast<int>(b));
  std::sort(edges.begin(), edges.end());  // as people write them: by source
  std::string out;
  for (const auto& [a, b] : edges)
    out += (out.empty() ? "" : ",") + std::to_string(a) + ">" + std::to_string(b);
  return out;
}

Status applyStageGraph(Plan& plan, std::vector<std::vector<int>> preds) {
  const std::string flag = "--stage-graph: ";
  if (plan.schedule != "gpipe" && plan.schedule != "1f1b")
    return Error{flag + "runs over gpipe or 1f1b, not " + plan.schedule};
  if (plan.numStages != plan.numRanks || plan.numReplicas() != 1 || plan.splitBackward)
    return Error{flag + "one stage per rank, one pipeline, whole backwards"};
  plan.stagePreds = std::move(preds);
  if (plan.schedule == "gpipe") return {};  // all forwards, then all backwards: valid on any DAG
  const int S = plan.numStages;
  std::vector<std::int64_t> depth(static_cast<std::size_t>(S), 0);  // longest path to the sink
  for (int s = S - 1; s >= 0; --s)
    for (int su : plan.successors(s))
      depth[static_cast<std::size_t>(s)] =
          std::max(depth[static_cast<std::size_t>(s)], depth[static_cast<std::size_t>(su)] + 1);
  auto priority = [&depth](int, const Action& a,
                           const sched::RankLoad& load) -> std::optional<std::int64_t> {
    if (a.kind != OpKind::F) return 0;
    if (load.awaitingBackward > depth[static_cast<std::size_t>(a.stage)]) return std::nullopt;
    return 1;
  };
  auto order = sched::listSchedule(plan, sched::UnitCosts{}, priority);
  if (!order) return Error{flag + order.error()};
  // The list scheduler orders one step; OPT (and further steps) come with repeatSteps.
  plan.programs = std::move(order->programs);
  return {};
}

}  // namespace ps::runtime
