#pragma once
// GraphPipe (Jeon et al., "GraphPipe: Improving Performance and Scalability of DNN Training with
// Graph Pipeline Parallelism", ASPLOS 2025): a model with parallel branches (two towers joined at
// a head) runs as a DAG of stages rather than forced into a chain. Branches that do not depend on
// each other run side by side, so a micro-batch crosses fewer stages (the DAG's depth, not its
// length) and the pipeline fills and drains sooner.
//
// Text form (--stage-graph, and the plan JSON's "stage_graph"): edges "a>b" separated by commas,
// stages numbered so that every edge goes forward (a < b); stage S-1 is the one sink (it holds
// the model's last layer and the loss); a stage without predecessors is a source (it reads the
// micro-batch's input itself). Layers are placed in stage order, so each branch is a range.

#include <string>
#include <vector>

#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime {

// Per stage, its predecessors. Errors name the flag and the offending edge.
Result<std::vector<std::vector<int>>> parseStageGraph(const std::string& text, int stages);

// The edges back in text form ("0>1,1>4,...").
std::string stageGraphText(const std::vector<std::vector<int>>& preds);

// Replaces a generated chain's (gpipe, 1f1b; one stage per rank) stage graph. gpipe's order
// stays; 1f1b's is derived again over the DAG by list scheduling: backwards first, and a stage
// holds at most 1 + (its longest path to the sink, in edges) micro-batches in flight, as a chain
// stage s of p holds p - s.
[[nodiscard]] Status applyStageGraph(Plan& plan, std::vector<std::vector<int>> preds);

}  // namespace ps::runtime
