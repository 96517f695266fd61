#include "trace/import/ThreadRanks.h"

#include <algorithm>
#include <map>
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

  const int n = static_cast<int>(order.size());
  std::vector<RawEvent> events = std::move(trace.events);
  std::vector<RawMemorySample> memory = std::move(trace.memory);
  trace.events.clear();
  trace.memory.clear();
  for (int r = 0; r < n; ++r) {
    RawRankTrace part = trace;  // names, steps and metadata shared by every thread
    part.rank = r;
    part.worldSize = n;
    if (r > 0) part.warnings.clear();  // said once, by rank 0
    out.traces.push_back(std::move(part));
    const auto [kind, id] = key(order[static_cast<std::size_t>(r)]);
    out.origins.push_back((kind == 0 ? "thread " : "track ") + std::to_string(id));
  }
  std::int64_t elsewhere = 0;
  std::set<std::int32_t> otherTracks;
  for (const auto& e : events) {
    if (e.source == EventSource::CpuAnnotation && e.name >= 0 && hasGpuVersion[e.name]) continue;
    const auto it = rankOfTrack.find(e.track);
    if (it == rankOfTrack.end()) {
      ++elsewhere;
      otherTracks.insert(e.track);
    }
    out.traces[it == rankOfTrack.end() ? 0 : it->second].events.push_back(e);
  }
  out.traces[0].memory = std::move(memory);

  const bool byThreadId = std::all_of(order.begin(), order.end(), [&](std::int32_t track) {
    return trace.threadIds.count(track) > 0;
  });
  out.note = "threads as ranks: " + std::to_string(n) +
             " threads of one process hold recognised compute; each is a rank, " +
             (byThreadId ? "by thread id" : "in track order (the file gives no thread ids)");
  if (elsewhere > 0)
    out.note +=
        " (" + std::to_string(elsewhere) + (elsewhere == 1 ? " event" : " events") + " of " +
        std::to_string(otherTracks.size()) +
        (otherTracks.size() == 1 ? " other thread or stream" : " other threads or streams") +
        " kept on rank 0)";
  return out;
}

}  // namespace ps::trace::import
