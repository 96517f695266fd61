#pragma once
// One run loaded into memory for the timeline and the analyses: per rank, per lane, a flat
// struct of arrays sorted by start time (DESIGN §7.2). Index-addressed; no per-op objects.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "trace/OpKind.h"
#include "trace/TraceRecords.h"

namespace ps::trace {

inline constexpr std::int32_t kNoValue = -1;  // null stage / micro-batch / peer / name

// The times a load accepts: |t| <= 2^52 ns (about 52 days either side of the run's start). Every
// time is then exact in a double (the timeline's maths) and differences and sums of a few spans
// stay far inside int64. The loader drops ops and memory samples outside it, with a warning.
inline constexpr std::int64_t kMaxAbsTimeNs = std::int64_t{1} << 52;

// The ops of one lane of one rank, sorted by start_ns (ties keep file order).
struct OpColumns {
  std::vector<std::int64_t> start;
  std::vector<std::int64_t> end;
  std::vector<std::int64_t> bytes;  // kNoValue when unknown
  std::vector<std::int32_t> stage;
  std::vector<std::int32_t> microbatch;
  std::vector<std::int32_t> step;
  std::vector<std::int32_t> peer;
  std::vector<std::int32_t> name;  // index into RunTrace::names, kNoValue for none
  std::vector<OpKind> kind;

  std::size_t size() const { return start.size(); }
  bool empty() const { return start.empty(); }
  void reserve(std::size_t n);
  void push(std::int64_t s, std::int64_t e, OpKind k, std::int32_t stg, std::int32_t mb,
            std::int32_t st, std::int32_t pr, std::int64_t b, std::int32_t nm);
  // Sorts by start (stable) unless already sorted; returns true when it had to reorder.
  bool sortByStart();
  // First index whose start >= t (binary search).
  std::size_t lowerBoundStart(std::int64_t t) const {
    return static_cast<std::size_t>(std::lower_bound(start.begin(), start.end(), t) -
                                    start.begin());
  }
  std::int64_t duration(std::size_t i) const { return end[i] - start[i]; }
};

struct MemorySeries {
  std::vector<std::int64_t> t;      // sorted
  std::vector<std::int64_t> bytes;  // in use from t[i] on
  std::size_t size() const { return t.size(); }
  // Stable sort by time (samples written in step batches may interleave across steps).
  void sortByTime();
};

struct RankTrace {
  RankInfo info;
  std::array<OpColumns, kLaneCount> lanes;
  MemorySeries memory;

  const OpColumns& lane(Lane l) const { return lanes[static_cast<int>(l)]; }
  OpColumns& lane(Lane l) { return lanes[static_cast<int>(l)]; }
  std::size_t opCount() const;
};

struct RunTrace {
  RunInfo info;
  std::vector<RankTrace> ranks;    // ranks[r].info.rank == r
  std::vector<std::string> names;  // interned op names
  std::vector<StageRecord> stages;
  std::vector<LayerRecord> layers;
  std::vector<MetricRecord> metrics;  // ordered by (name, step, file order)
  // What the loader dropped, clamped or could not read, one line each naming the file ("PATH:
  // run N: ..."); the CLI and the app show them. Empty for a clean file.
  std::vector<std::string> warnings;

  std::size_t opCount() const;
  // [earliest start, latest end] over every op and memory sample; {0,0} when empty.
  std::pair<std::int64_t, std::int64_t> timeExtent() const;
  const std::string* nameOf(std::int32_t index) const {
    return index >= 0 && static_cast<std::size_t>(index) < names.size() ? &names[index] : nullptr;
  }
};

}  // namespace ps::trace
