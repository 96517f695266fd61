#pragma once
// Reading single knobs back out of a run's config_json.

#include <optional>
#include <string>
#include <string_view>

#include "trace/TraceRecords.h"

namespace ps::trace {

// An integer field at the top level of a JSON object; nullopt when absent, not an integer, or the
// text is not valid JSON.
std::optional<long long> jsonTopLevelInt(std::string_view json, std::string_view key);
std::optional<std::string> jsonTopLevelString(std::string_view json, std::string_view key);
// An object field at the top level, as JSON text (e.g. a model run's "plan"); nullopt as above.
std::optional<std::string> jsonTopLevelObject(std::string_view json, std::string_view key);

// V, the chunks per rank: config_json's "chunks", else num_stages / num_ranks when that divides.
std::optional<int> chunksOf(const RunInfo& run);
// D, the data-parallel replicas of the pipeline (--dp): config_json's "dp" (or its plan's, for
// a model run), else 1.
int dataParallelOf(const RunInfo& run);

}  // namespace ps::trace
