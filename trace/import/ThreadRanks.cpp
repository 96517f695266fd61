#include "trace/import/ThreadRanks.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace ps::trace::import {
namespace {

// Names with a GPU projection: their CPU ranges are dropped, the GPU side counts.
std::vector<bool> namesOnTheGpu(const RawRankTrace& trace) {
  std::vector<bool> hasGpuVersion(trace.names.size(), false);
  for (const auto& e : trace.events)
    if (e.source == EventSource::GpuAnnotation && e.name >= 0) hasGpuVersion[e.name] = true;
  return hasGpuVersion;
}

// The tracks holding recognised compute labels, each name recognised once.
std::set<std::int32_t> computeTracksOf(const RawRankTrace& trace, const OpRecognizer& recognizer,
                                       const std::vector<bool>& hasGpuVersion) {
  std::vector<signed char> compute(trace.names.size(), -1);  // -1 not asked yet
  std::set<std::int32_t> computeTracks;
  for (const auto& e : trace.events) {
    if (!isAnnotation(e.source) || e.name < 0) continue;
    if (e.source == EventSource::CpuAnnotation && hasGpuVersion[e.name]) continue;
    if (compute[e.name] < 0) {
      const auto op = recognizer.recognize(trace.names[e.name]);
      compute[e.name] = op && isCompute(op->kind) ? 1 : 0;
    }
    if (compute[e.name]) computeTracks.insert(e.track);
  }
  return computeTracks;
}

// The step range OpBuilder looks at for an event starting at `t`: the last one starting at or
// before t (whether or not it holds t). A rank given the ranges its events look at finds the
// same step for each of them as with all the ranges.
std::optional<std::size_t> stepLookedUp(const std::vector<StepRange>& steps, std::int64_t t) {
  const auto it =
      std::upper_bound(steps.begin(), steps.end(), t,
                       [](std::int64_t v, const StepRange& s) { return v < s.start_ns; });
  if (it == steps.begin()) return std::nullopt;
  return static_cast<std::size_t>(std::prev(it) - steps.begin());
}

// A rank's trace without events: the file's shape and the one thread's id.
RawRankTrace emptyPart(const RawRankTrace& trace, int rank, int ranks, std::int32_t track) {
  RawRankTrace part;
  part.file = trace.file;
  part.format = trace.format;
  part.rank = rank;
  part.worldSize = ranks;
  part.wallClockOffsetNs = trace.wallClockOffsetNs;
  part.host = trace.host;
  part.device = trace.device;
  part.memoryCapacityBytes = trace.memoryCapacityBytes;
  if (const auto id = trace.threadIds.find(track); id != trace.threadIds.end())
    part.threadIds.insert(*id);
  return part;
}

// Gives a rank's events names of its own table and the step ranges they look up (see
// stepLookedUp): linear in the rank's events, with scratch reused from rank to rank.
class PartLocalizer {
 public:
  explicit PartLocalizer(const RawRankTrace& whole)
      : whole_(whole), local_(whole.names.size(), -1) {}

  void localize(RawRankTrace& part) {
    for (auto& e : part.events) {
      if (e.step < 0)
        if (const auto step = stepLookedUp(whole_.steps, e.start_ns)) steps_.push_back(*step);
      if (e.name < 0) continue;
      std::int32_t& local = local_[static_cast<std::size_t>(e.name)];
      if (local < 0) {
        local = part.intern(whole_.names[static_cast<std::size_t>(e.name)]);
        touched_.push_back(e.name);
      }
      e.name = local;
    }
    for (const std::int32_t name : touched_)
      local_[static_cast<std::size_t>(name)] = -1;
    touched_.clear();
    std::sort(steps_.begin(), steps_.end());
    steps_.erase(std::unique(steps_.begin(), steps_.end()), steps_.end());
    for (const std::size_t step : steps_)
      part.steps.push_back(whole_.steps[step]);
    steps_.clear();
  }

 private:
  const RawRankTrace& whole_;
  std::vector<std::int32_t> local_;  // the whole trace's name -> the part's; -1 between ranks
  std::vector<std::int32_t> touched_;
  std::vector<std::size_t> steps_;
};

// What the split says about itself.
std::string splitNote(int ranks, bool byThreadId, std::int64_t elsewhere, std::size_t others) {
  std::string note =
      "threads as ranks: " + std::to_string(ranks) +
      " threads of one process hold recognised compute; each is a rank, " +
      (byThreadId ? "by thread id" : "in track order (the file gives no thread ids)");
  if (elsewhere > 0)
    note += " (" + std::to_string(elsewhere) + (elsewhere == 1 ? " event" : " events") + " of " +
            std::to_string(others) +
            (others == 1 ? " other thread or stream" : " other threads or streams") +
            " kept on rank 0)";
  return note;
}

}  // namespace

std::size_t computeTrackCount(const RawRankTrace& trace, const OpRecognizer& recognizer) {
  return computeTracksOf(trace, recognizer, namesOnTheGpu(trace)).size();
}

ThreadSplit splitThreadsAsRanks(RawRankTrace trace, const OpRecognizer& recognizer) {
  const std::vector<bool> hasGpuVersion = namesOnTheGpu(trace);
  const std::set<std::int32_t> computeTracks = computeTracksOf(trace, recognizer, hasGpuVersion);

  ThreadSplit out;
  if (computeTracks.size() < 2) {
    out.note = "threads as ranks: " +
               std::string(computeTracks.empty() ? "no thread holds" : "one thread holds") +
               " recognised compute, imported as one rank";
    out.origins.push_back("only file");
    out.traces.push_back(std::move(trace));
    return out;
  }

  // Ranks by thread id where known (threads first), else by track number.
  std::vector<std::int32_t> order(computeTracks.begin(), computeTracks.end());
  const auto key = [&](std::int32_t track) {
    const auto it = trace.threadIds.find(track);
    return it != trace.threadIds.end() ? std::pair<int, std::int64_t>{0, it->second}
                                       : std::pair<int, std::int64_t>{1, track};
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int32_t a, std::int32_t b) { return key(a) < key(b); });
  std::map<std::int32_t, std::size_t> rankOfTrack;
  for (std::size_t r = 0; r < order.size(); ++r)
    rankOfTrack[order[r]] = r;

  // Linear in the events and the threads (issue 30, item 13): each rank's trace holds only the
  // names its own events use, its own thread id, and the step ranges its events look up.
  // Copying the whole trace per thread was O(threads x names): 8000 threads took 4 GB, 20000
  // aborted.
  const int n = static_cast<int>(order.size());
  std::vector<std::vector<RawEvent>> byRank(order.size());
  std::int64_t elsewhere = 0;
  std::set<std::int32_t> otherTracks;
  for (const auto& e : trace.events) {
    if (e.source == EventSource::CpuAnnotation && e.name >= 0 && hasGpuVersion[e.name]) continue;
    const auto it = rankOfTrack.find(e.track);
    if (it == rankOfTrack.end()) {
      ++elsewhere;
      otherTracks.insert(e.track);
    }
    byRank[it == rankOfTrack.end() ? 0 : it->second].push_back(e);
  }
  trace.events = {};
  PartLocalizer localizer(trace);
  for (int r = 0; r < n; ++r) {
    const std::int32_t track = order[static_cast<std::size_t>(r)];
    RawRankTrace part = emptyPart(trace, r, n, track);
    if (r == 0) {  // said once, by rank 0, which also keeps the memory samples
      part.warnings = std::move(trace.warnings);
      part.memory = std::move(trace.memory);
    }
    part.events = std::move(byRank[static_cast<std::size_t>(r)]);
    localizer.localize(part);
    out.traces.push_back(std::move(part));
    const auto [kind, id] = key(track);
    out.origins.push_back((kind == 0 ? "thread " : "track ") + std::to_string(id));
  }
  const bool byThreadId = std::all_of(order.begin(), order.end(), [&](std::int32_t track) {
    return trace.threadIds.count(track) > 0;
  });
  out.note = splitNote(n, byThreadId, elsewhere, otherTracks.size());
  return out;
}

}  // namespace ps::trace::import
