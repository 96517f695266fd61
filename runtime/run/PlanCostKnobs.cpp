// The plan knob table's device, link and cost rows (PlanKnobs.h); `explore` takes only these
// flags (KnobGroup::Cost).
#include <array>
#include <string_view>

#include "runtime/cost/CostModel.h"
#include "runtime/run/PlanKnobFields.h"

namespace ps::runtime {
namespace {

bool withTopology(const PlanSpec& s) {
  return !s.topology.empty();
}
// The uniform flags only when they made the costs: under a cost file or a given model they were
// not used, and "costs" holds what was (issue 30, item 10).
bool uniformCosts(const PlanSpec& s) {
  return !s.costs && s.costsFile.empty();
}

using F = KnobFormat;
constexpr std::array<std::string_view, 2> kInterLinks{"node", "device"};
constexpr KnobGroup cost = KnobGroup::Cost;

constexpr PlanKnob kCostKnobs[] = {
    // Devices and links.
    {.key = "rank_speed",
     .flag = "--rank-speed",
     .label = "rank speed",
     .help = "Per-rank speed factors, e.g. 1,1,2,1 (2 = twice as fast); the "
             "partitioner balances by them",
     .field = field<&PlanSpec::rankSpeed>(),
     .format = F::NumberList,
     .group = cost,
     .written = [](const PlanSpec& s) { return !s.rankSpeed.empty(); },
     .panel = {.label = "Rank speeds", .placeholder = "e.g. 1,1,2,1", .movesCut = true}},
    {.key = "rank_memory_gb",
     .flag = "--rank-memory-gb",
     .label = "rank memory GiB",
     .help = "Per-rank memory capacity in GiB, e.g. 80,80,40,40; the partitioner fits "
             "each stage's peak in it",
     .field = field<&PlanSpec::rankMemoryGb>(),
     .format = F::NumberList,
     .group = cost,
     .written = [](const PlanSpec& s) { return !s.rankMemoryGb.empty(); },
     .panel = {.label = "Rank memory", .placeholder = "GiB, e.g. 80,80,40,40", .movesCut = true}},
    {.key = "topology",
     .flag = "--topology",
     .label = "topology",
     .help = "Nodes x devices, e.g. 2x4, or nodes of different sizes, e.g. 4+2+2: within "
             "a node the --link flags, between nodes --inter-gbps over one link each pair of "
             "nodes shares",
     .field = field<&PlanSpec::topology>(),
     .format = F::Text,
     .group = cost,
     .written = withTopology,
     .panel = {.placeholder = "e.g. 2x4 or 4+2+2", .movesCut = true}},
    {.key = "inter_gbps",
     .flag = "--inter-gbps",
     .label = "inter-node link",
     .help = "Inter-node link bandwidth (Gb/s) under --topology; default: the --link "
             "one",
     .field = field<&PlanSpec::interGbps>(),
     .format = F::Gbps,
     .group = cost,
     .written = withTopology,
     .positive = true,
     .panel = {.label = "Inter-node", .decimals = 1}},
    {.key = "inter_latency_us",
     .flag = "--inter-latency-us",
     .label = "inter-node latency",
     .help = "Inter-node link latency (µs) under --topology",
     .field = field<&PlanSpec::interLatencyUs>(),
     .format = F::Us,
     .group = cost,
     .written = withTopology},
    {.key = "inter_links",
     .flag = "--inter-links",
     .label = "inter-node links",
     .help = "Under --topology: node (one link per pair of nodes that all their devices share, "
             "a network card per node; the default) or device (a link per pair of devices, a "
             "card per device, which no other transfer or all-reduce queues on)",
     .field = field<&PlanSpec::interLinks>(),
     .format = F::Text,
     .group = cost,
     .choices = kInterLinks,
     .written = [](const PlanSpec& s) { return !s.topology.empty() && !s.interLinks.empty(); },
     .emptyAs = "node"},
    {.key = "mapping",
     .flag = "--mapping",
     .label = "mapping",
     .help = "Which device runs each rank: rank (default), auto (searched by simulated "
             "step time) or a device list, e.g. 0,4,1,5,2,6,3,7",
     .field = field<&PlanSpec::mapping>(),
     .format = F::Text,
     .group = cost,
     .fromPlan = true,
     .panel = {.placeholder = "rank, auto or 0,4,1,5,...", .movesCut = true}},
    // The uniform cost model: meaningless where a cost file or given costs replace it.
    {.key = "fwd_us",
     .flag = "--fwd-us",
     .label = "fwd",
     .help = "One layer's forward time (µs)",
     .field = uniform<&UniformCostFlags::fwdUs>(),
     .format = F::Us,
     .group = cost,
     .written = uniformCosts,
     .panel = {.label = "F / B / W µs", .bare = true}},
    {.key = "bwd_us",
     .flag = "--bwd-us",
     .label = "bwd",
     .help = "One layer's whole backward I+W (µs)",
     .field = uniform<&UniformCostFlags::bwdUs>(),
     .format = F::Us,
     .group = cost,
     .written = uniformCosts,
     .panel = {.bare = true}},
    {.key = "wgrad_us",
     .flag = "--wgrad-us",
     .label = "wgrad",
     .help = "The weight-gradient part W of --bwd-us (µs)",
     .field = uniform<&UniformCostFlags::wgradUs>(),
     .format = F::Us,
     .group = cost,
     .written = uniformCosts,
     .panel = {.bare = true}},
    {.key = "act_mb",
     .flag = "--act-mb",
     .label = "act",
     .help = "One micro-batch's activations per layer (MiB)",
     .field = uniform<&UniformCostFlags::actMb>(),
     .format = F::MiB,
     .group = cost,
     .written = uniformCosts,
     .panel = {.label = "Activations / layer", .unit = " MB", .decimals = 3}},
    {.key = "param_mb",
     .flag = "--param-mb",
     .label = "params",
     .help = "Parameters per layer (MiB)",
     .field = uniform<&UniformCostFlags::paramMb>(),
     .format = F::MiB,
     .group = cost,
     .written = uniformCosts},
    {.key = "link_gbps",
     .flag = "--link-gbps",
     .label = "link",
     .help = "Link bandwidth (Gb/s); default: free links",
     .field = uniform<&UniformCostFlags::linkGbps>(),
     .format = F::Gbps,
     .group = cost,
     .written = uniformCosts,
     .positive = true,
     .panel = {.bespoke = true}},
    {.key = "link_latency_us",
     .flag = "--link-latency-us",
     .label = "latency",
     .help = "Link latency (µs)",
     .field = uniform<&UniformCostFlags::linkLatencyUs>(),
     .format = F::Us,
     .group = cost,
     .written = uniformCosts,
     .panel = {.bespoke = true}},
    {.key = "costs_file",
     .flag = "--costs",
     .label = "costs",
     .help = "Per-layer cost JSON",
     .field = field<&PlanSpec::costsFile>(),
     .format = F::File,
     .group = cost,
     .written = [](const PlanSpec& s) { return !s.costsFile.empty(); },
     .panel = {.bespoke = true}},
};

}  // namespace

std::span<const PlanKnob> costPlanKnobs() {
  return kCostKnobs;
}

}  // namespace ps::runtime
