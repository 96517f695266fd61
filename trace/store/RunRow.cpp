#include "trace/store/RunRow.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace ps::trace {
namespace {

// Header counts are INTEGER in the file but int in memory: clamp rather than truncate, so a
// hostile 2^40 stays huge (and is then checked against the data) instead of wrapping to 0.
int clampToInt(std::int64_t v) {
  constexpr std::int64_t lo = std::numeric_limits<int>::min();
  constexpr std::int64_t hi = std::numeric_limits<int>::max();
  return static_cast<int>(std::clamp(v, lo, hi));
}

}  // namespace

RunInfo readRunRow(const SqliteStatement& s, bool withStatusMessage) {
  RunInfo info;
  info.id = s.int64(0);
  info.name = std::string(s.text(1));
  info.created_utc = std::string(s.text(2));
  info.source = std::string(s.text(3));
  info.schedule = s.optText(4);
  info.num_ranks = clampToInt(s.int64(5));
  if (auto v = s.optInt64(6)) info.num_stages = clampToInt(*v);
  if (auto v = s.optInt64(7)) info.num_microbatches = clampToInt(*v);
  info.config_json = std::string(s.text(8));
  info.status = parseRunStatus(s.text(9)).value_or(RunStatus::Running);
  if (withStatusMessage) info.status_message = std::string(s.text(10));
  return info;
}

}  // namespace ps::trace
