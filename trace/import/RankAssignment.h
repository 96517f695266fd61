#pragma once
// Which rank each imported profile is (issue 6 item 4): an explicit --rank FILE=N mapping wins,
// then the file's metadata (Kineto distributedInfo.rank), then a rank number in the file name
// ("rank3", "rank-34_of300", "worker5"); a lone file without any is rank 0. Several profiles of
// one file (an nsys export of `mpirun -np 4`) take consecutive ranks from the file's base.
// Ranks are then renumbered densely (0..n-1 in rank order) because the store's ranks are dense;
// the original numbers are kept for the summary and the run's config_json.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/Result.h"
#include "trace/import/RawTrace.h"

namespace ps::trace::import {

struct RankSource {
  int originalRank = 0;  // as the metadata / file name / mapping says
  int storedRank = 0;    // dense, 0..n-1
  std::string how;       // "metadata", "file name", "--rank", "only file", "process order"
};

// The rank number a file name carries, if any.
std::optional<int> rankFromFileName(std::string_view path);

// One entry per trace, same order. Errors: a trace whose rank cannot be told (several files),
// two traces claiming one rank, traces of different world sizes (files of different runs).
Result<std::vector<RankSource>> assignRanks(const std::vector<RawRankTrace>& traces,
                                            const std::map<std::string, int>& explicitRanks);

// Files recorded far apart in wall-clock time are of different runs; mixing them is an error
// naming both files.
Status checkSameRun(const std::vector<RawRankTrace>& traces);

}  // namespace ps::trace::import
