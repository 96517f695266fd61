#include "runtime/run/PlanConfigJson.h"

#include <type_traits>
#include <variant>

#include "runtime/cost/CostJson.h"
#include "runtime/run/DeviceMapping.h"
#include "runtime/run/PlanKnobs.h"
#include "runtime/schedules/StageGraph.h"
#include "runtime/schedules/VariableMicrobatches.h"
#include "trace/JsonWriter.h"

namespace ps::runtime {
namespace {

// A sliced plan's slices per sequence: the length of the first slice chain.
int slicesPerSequence(const Plan& plan) {
  int k = 1;
  while (k < plan.numMicrobatches() &&
         plan.microbatches[static_cast<std::size_t>(k)].sliceOf == k - 1)
    ++k;
  return k;
}

// The lengths themselves, not "@FILE": a rerun needs no file.
std::string resolvedLengths(const PlanSpec& spec) {
  std::string text;
  auto lengths = parseSequenceLengths(spec.seqLengths, spec.seqTokens);
  for (int l : lengths ? *lengths : std::vector<int>{})
    text += (text.empty() ? "" : ",") + std::to_string(l);
  return text;
}

// A knob copied from the spec, as its field holds it (an empty text as the default it stands for).
void writeSpecValue(trace::JsonWriter& w, const PlanKnob& knob, const PlanSpec& spec) {
  // The accessors hand out references for the readers too; here they are only read.
  auto& fields = const_cast<PlanSpec&>(spec);
  std::visit(
      [&](auto get) {
        if constexpr (!std::is_same_v<decltype(get), std::monostate>) {
          const auto& v = get(fields);
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::string>) {
            w.value(v.empty() ? knob.emptyAs : std::string_view(v));
          } else if constexpr (std::is_same_v<T, std::vector<double>>) {
            w.beginArray();
            for (double x : v)
              w.value(x);
            w.endArray();
          } else {
            w.value(v);
          }
        }
      },
      knob.field);
}

// The knobs the built plan shapes: what was run, not what was asked (a schedule's own chunk
// count, the balanced boundaries, the mapping found by "auto", the lengths of an "@FILE").
void writePlanValue(trace::JsonWriter& w, std::string_view key, const PlanSpec& spec,
                    const Plan& plan, const std::vector<int>& deviceOf) {
  if (key == "schedule") {
    w.key(key).value(plan.schedule);
  } else if (key == "stages") {  // one replica's ranks: --dp multiplies them
    w.key(key).value(plan.numRanks / std::max(1, spec.dataParallel));
  } else if (key == "microbatches") {
    // Grouped sequences (DynaPipe): the grouping sets the count; a rerun must not pin it.
    // Sliced sequences (TeraPipe) are the micro-batches the user counts.
    if (!spec.seqLengths.empty()) return;
    const int slices = spec.tokenSlices.empty() ? 1 : slicesPerSequence(plan);
    w.key(key).value(plan.numMicrobatches() / slices);
  } else if (key == "chunks") {
    w.key(key).value(plan.chunks);
  } else if (key == "layers") {  // the model's, not the operators it was cut between
    w.key(key).value(plan.numLayers / std::max(1, plan.operatorsPerLayer));
  } else if (key == "boundaries") {
    w.key(key).beginArray();
    for (int s = 1; s < plan.numStages; ++s)
      w.value(plan.placement[0][s].firstLayer);
    w.endArray();
  } else if (key == "steps") {
    w.key(key).value(plan.steps);
  } else if (key == "optimizer_sync") {
    w.key(key).value(optimizerSyncName(plan.optimizerSync));
  } else if (key == "recompute") {
    w.key(key).value(plan.recompute);
  } else if (key == "stage_graph") {
    if (!plan.stagePreds.empty()) w.key(key).value(stageGraphText(plan.stagePreds));
  } else if (key == "seq_lengths") {
    if (!spec.seqLengths.empty()) w.key(key).value(resolvedLengths(spec));
  } else if (key == "mapping") {
    // The mapping used, not "auto": a rerun places the ranks the same way without searching.
    if (!isRankOrder(deviceOf)) w.key(key).value(deviceOrderText(deviceOf));
  }
}

}  // namespace

std::string planConfigJson(const PlanSpec& spec, const Plan& plan, const CostModel& cost,
                           const std::vector<int>& deviceOf) {
  trace::JsonWriter w;
  w.beginObject();
  for (const PlanKnob& knob : planKnobs()) {
    if (knob.fromPlan) {
      writePlanValue(w, knob.key, spec, plan, deviceOf);
    } else if (!knob.written || knob.written(spec)) {
      w.key(knob.key);
      writeSpecValue(w, knob, spec);
    }
  }
  // Costs given as a model (a prediction's calibrated costs) rather than by flags or a file:
  // a rerun must take the embedded "costs", not rebuild them from the uniform flags.
  if (spec.costs && spec.costsFile.empty()) w.key("costs_embedded").value(true);
  w.key("costs").raw(writeCostJson(cost));
  w.endObject();
  return w.str();
}

}  // namespace ps::runtime
