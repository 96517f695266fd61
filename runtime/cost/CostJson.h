#pragma once
// The per-layer cost file (DESIGN §2, `--costs FILE.json`), read with simdjson and written by
// calibration. Format, version 1 (every key but "layers" is optional; keys starting with '_' are
// comments and ignored; any other unknown key is an error, so typos do not pass silently):
//
//   {
//     "format": "pipescope-costs", "version": 1,
//     "source": "calibrated on cpu, 2024-05-01",          // free text
//     "layers": [
//       {"name": "embed", "fwd_us": 120, "bwd_us": 240, "wgrad_us": 100,
//        "act_bytes": 4194304, "param_bytes": 1048576},
//       {"name": "block", "repeat": 24, "fwd_us": 300, "igrad_us": 310, "wgrad_us": 290,
//        "act_bytes": 8388608, "param_bytes": 33554432}
//     ],
//     "ranks": [{"speed": 1.0, "memory_gb": 80}, {"speed": 1.5, "memory_bytes": 42949672960}],
//     "link":  {"gbps": 100, "latency_us": 5},
//     "links": [{"src": 0, "dst": 1, "gbps": 25, "latency_us": 20}],
//     "optimizer_ns_per_param_byte": 0.02,
//     "state_bytes_per_param_byte": 4
//   }
//
// Layers: `fwd_us` one micro-batch's forward (required); the backward either as `bwd_us` (I + W,
// as the CLI's --bwd-us) with optional `wgrad_us` (the W part; default half of bwd_us), or as
// `igrad_us` + `wgrad_us`. `act_bytes` are kept from F until the last backward; optional
// `output_bytes` is the layer's output per micro-batch, what a stage boundary after it sends
// (default: act_bytes); `repeat` expands
// one entry into that many identical layers named "name.0", "name.1", ...
// Ranks (index = rank): `speed` divides durations (2 = twice as fast); memory capacity as
// `memory_gb` (GiB, 2^30 bytes) or exact `memory_bytes`. Ranks not listed have speed 1, no cap.
// Links: `gbps` gigabits per second (0 or omitted = free, transfers take no time), `latency_us`;
// `links` override the default `link` for one direction src → dst, inheriting what they omit.

#include <string>
#include <string_view>

#include "runtime/cost/CostModel.h"
#include "trace/Result.h"

namespace ps::runtime {

// Errors start with `sourceName`: "costs.json:4:17: malformed JSON: expected ',' or '}'",
// "costs.json: layers[3].fwd_us: expected a non-negative number".
[[nodiscard]] Result<CostModel> parseCostJson(std::string_view json, std::string_view sourceName);
[[nodiscard]] Result<CostModel> loadCostJson(const std::string& path);

// The file form of a model (layers as fwd/igrad/wgrad, exact byte counts), which parseCostJson
// reads back to an equal model.
[[nodiscard]] std::string writeCostJson(const CostModel& model, std::string_view source = {});
[[nodiscard]] Status saveCostJson(const CostModel& model, const std::string& path,
                                  std::string_view source = {});

}  // namespace ps::runtime
