// The plan knob table's rows for the papers' mechanisms added after the table was split
// (PlanKnobs.h): written after the cost rows, and only when set, so that every config written
// before them reads and writes back the same.
#include "runtime/run/PlanKnobFields.h"

namespace ps::runtime {
namespace {

using F = KnobFormat;

constexpr PlanKnob kMechanismKnobs[] = {
    {.key = "operators",
     .flag = "--operators",
     .label = "operators per layer",
     .help = "DawnPiper: cut between operators, each layer as K operators with a K-th of its "
             "time, activations and parameters; --boundaries counts operators (sim backend)",
     .field = field<&PlanSpec::operators>(),
     .min = 1,
     .max = 64,
     .written = [](const PlanSpec& s) { return s.operators > 1; },
     .panel = {.label = "Operators per layer", .movesCut = true}},
    {.key = "eager_sync",
     .flag = "--eager-sync",
     .label = "eager gradient sync",
     .help = "Chimera/BitPipe (replicated stages): each stage's gradients go to its twins as "
             "soon as both are done with its backward, beside compute, not all at once before "
             "the optimizer step (sim; the cpu backend exchanges at the step, same result)",
     .field = field<&PlanSpec::eagerSync>(),
     .format = F::Flag,
     .written = [](const PlanSpec& s) { return s.eagerSync; },
     .panel = {.label = "Eager gradient sync"}},
    {.key = "staleness",
     .flag = "--staleness",
     .label = "wave staleness",
     .help = "HetPipe's wave-synchronous parallel (with --dp): each replica updates its weights "
             "from its own gradients and sends the update to the others beside compute; its "
             "step k adds theirs of step k - D (0 = all-reduce every step)",
     .field = field<&PlanSpec::staleness>(),
     .min = 0,
     .max = 64,
     .written = [](const PlanSpec& s) { return s.staleness > 0; },
     .panel = {.label = "Wave staleness"}},
    {.key = "graph_nodes",
     .flag = "--graph-nodes",
     .label = "graph nodes",
     .help = "GNNPipe: a power-law graph of N nodes (the cpu backend's gnn graph), its chunks the "
             "micro-batches; with --dp the all-to-all is each part's halo exchange at every "
             "layer, bytes read off the graph (--act-mb: a chunk's embeddings)",
     .field = field<&PlanSpec::graphNodes>(),
     .min = 0,
     .max = 1 << 20,
     .written = [](const PlanSpec& s) { return s.graphNodes > 0; },
     .panel = {.label = "Graph nodes", .none = "none"}},
    {.key = "fetch_stages_us",
     .flag = "--fetch-stages-us",
     .label = "fetch stages",
     .help = "NestPipe (--fetch-mb): the inter-batch pipeline's stages before the gather, "
             "'prefetch,h2d,routing,lookup' µs per micro-batch, each on its own lane of the rank",
     .field = field<&PlanSpec::fetchStagesUs>(),
     .format = F::Text,
     .written = [](const PlanSpec& s) { return !s.fetchStagesUs.empty(); },
     .panel = {.label = "Fetch stages µs"}},
    {.key = "history_refresh",
     .flag = "--history-refresh",
     .label = "history refresh",
     .help = "GNNPipe's staleness bound (--model gnn, cpu backend): before every K-th step a "
             "forward pass over the whole graph makes each layer's historical embeddings current "
             "(1: staleness 0, the full graph's forward; 0: never)",
     .field = field<&PlanSpec::historyRefresh>(),
     .min = 0,
     .max = 1000,
     .written = [](const PlanSpec& s) { return s.historyRefresh > 0; },
     .panel = {.label = "History refresh", .none = "never"}},
    {.key = "cluster_keys",
     .flag = "--cluster-keys",
     .label = "key clustering",
     .help = "NestPipe's key-centric sample clustering (--fetch-mb, cpu backend): each step's "
             "samples regrouped into micro-batches by shared embedding keys, so each gather "
             "moves fewer distinct rows; the step trains on the same samples",
     .field = field<&PlanSpec::clusterKeys>(),
     .format = F::Flag,
     .written = [](const PlanSpec& s) { return s.clusterKeys; },
     .panel = {.label = "Cluster samples by key"}},
};

}  // namespace

std::span<const PlanKnob> mechanismPlanKnobs() {
  return kMechanismKnobs;
}

}  // namespace ps::runtime
