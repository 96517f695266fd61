#include "runtime/run/PresetFamilies.h"

namespace ps::runtime {

// A paper's family is what it changes: the order of the passes (classic, zero bubble,
// bidirectional), the memory they hold, the devices or model they are cut for, the shape of
// the data that flows (sequences, experts, embeddings, graph chunks), or the step's flush
// (asynchronous updates). Kept under 15 entries each: a submenu that fits any screen.
const std::vector<PresetFamily>& presetFamilies() {
  static const std::vector<PresetFamily> families{
      {"&Classic schedules",
       "GPipe, 1F1B and interleaved 1F1B: the figures the others are measured against",
       {"gpipe", "1f1b", "interleaved-1f1b", "dapple", "dapple-baseline"}},
      {"&Zero bubble",
       "The backward split or deferred so that its weight gradients fill the bubbles",
       {"zb-h1", "zb-h2", "zb-v", "2bp", "2bp-baseline", "layerpipe", "layerpipe-baseline",
        "diffusionpipe", "diffusionpipe-baseline"}},
      {"&Bidirectional",
       "Two pipelines in opposite directions over the same ranks",
       {"chimera", "bitpipe", "bitpipe-baseline", "dualpipe-v"}},
      {"&Memory",
       "Activation memory balanced over the stages",
       {"bpipe", "bpipe-baseline", "dawnpiper", "dawnpiper-baseline"}},
      {"&Heterogeneous",
       "Unequal devices, links, layers or model branches: the cut and placement follow them",
       {"hetpipe", "hetpipe-baseline", "bapipe", "bapipe-baseline", "pipeedge", "pipeedge-baseline",
        "topology-mapping", "topology-mapping-baseline", "graphpipe", "graphpipe-baseline"}},
      {"&Sequence / MoE",
       "What flows is unusual: token slices, sequences of many lengths, expert all-to-alls, "
       "embedding fetches, graph chunks",
       {"terapipe", "terapipe-baseline", "dynapipe", "dynapipe-baseline", "piper", "piper-baseline",
        "nestpipe", "nestpipe-baseline", "gnnpipe", "gnnpipe-baseline"}},
      {"&Asynchronous",
       "No flush at the step's end: weight stashing, versions, prediction or delayed gradients",
       {"pipedream", "pipedream-2bw", "xpipe", "xpipe-baseline", "timeprest", "timeprest-baseline",
        "spikepipe", "spikepipe-baseline", "fpdeep", "fpdeep-baseline"}},
  };
  return families;
}

}  // namespace ps::runtime
