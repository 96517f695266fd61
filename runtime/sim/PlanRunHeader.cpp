// planRunHeader (runtime/sim/Simulator.h): the run row, ranks, stages and layers a simulated or
// executed plan is written with.

#include "runtime/sim/Simulator.h"

namespace ps::runtime {

trace::RunHeader planRunHeader(const Plan& plan, const CostModel& cost, const std::string& source,
                               const std::string& name, const std::string& configJson) {
  trace::RunHeader h;
  h.info.name = name;
  h.info.source = source;
  h.info.schedule = plan.schedule;
  h.info.num_ranks = plan.numRanks;
  h.info.num_stages = plan.numStages;
  h.info.num_microbatches = plan.numMicrobatches();
  h.info.config_json = configJson;
  for (int r = 0; r < plan.numRanks; ++r) {
    trace::RankInfo info;
    info.rank = r;
    info.host = "localhost";
    info.device = source;
    info.memory_capacity_bytes = cost.capacityOf(r);
    h.ranks.push_back(info);
  }
  for (const auto& replica : plan.placement)
    for (int s = 0; s < static_cast<int>(replica.size()); ++s)
      h.stages.push_back({s, replica[s].rank, replica[s].firstLayer, replica[s].lastLayer});
  for (int l = 0; l < plan.numLayers && l < static_cast<int>(cost.layers.size()); ++l) {
    const LayerCost& c = cost.layers[l];
    trace::LayerRecord rec;
    rec.layer = l;
    rec.name = c.name.empty() ? std::nullopt : std::optional<std::string>(c.name);
    rec.fwd_ns = static_cast<std::int64_t>(c.fwdNs);
    rec.bwd_ns = static_cast<std::int64_t>(c.inputGradNs + c.weightGradNs);
    rec.wgrad_ns = static_cast<std::int64_t>(c.weightGradNs);
    rec.act_bytes = c.actBytes;
    rec.param_bytes = c.paramBytes;
    h.layers.push_back(rec);
  }
  return h;
}

}  // namespace ps::runtime
