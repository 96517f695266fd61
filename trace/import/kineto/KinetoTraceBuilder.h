#pragma once
// The Kineto format's meaning, apart from its JSON: which events become annotations, kernels,
// NCCL kernels, copies, steps and memory samples; tracks per (pid, tid); B/E pairing; and, once
// every event is in, the CPU ranges projected onto the GPU. What the last pass derives from the
// whole file (step numbers, peers, the device, the time base, warnings) is KinetoTraceFinish's;
// what a kernel's or copy's args say is KinetoCommArgs's.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/import/GpuProjection.h"
#include "trace/import/RawTrace.h"
#include "trace/import/kineto/KinetoEvent.h"
#include "trace/import/kineto/KinetoMetadata.h"
#include "trace/import/kineto/KinetoTraceFinish.h"

namespace ps::trace::import {

class KinetoTraceBuilder {
 public:
  explicit KinetoTraceBuilder(std::string file);

  void add(const KinetoEvent& event);
  // Everything after the last event: metadata applied, derived fields computed.
  [[nodiscard]] RawRankTrace finish(const KinetoMetadata& meta);

  std::size_t keptEvents() const { return trace_.events.size(); }

 private:
  struct PendingBegin {
    KinetoCategory category = KinetoCategory::Missing;
    bool profilerStep = false;
    std::string name;
    std::int64_t startNs = 0;
  };

  // One event by phase: a complete ("X") event, a range's begin ("B") or end ("E").
  void addComplete(const KinetoEvent& event);
  void addBegin(const KinetoEvent& event);
  void addEnd(const KinetoEvent& event);
  static std::string threadKey(const KinetoEvent& event);
  void addRange(const KinetoEvent& event, std::int64_t startNs, std::int64_t endNs);
  // PipeScope's own export: an op stated in args, on the rank its process id names; a memory
  // counter of that rank.
  void addStated(const KinetoEvent& event, std::int64_t startNs, std::int64_t endNs);
  void addRankMemory(const KinetoEvent& event);
  void addLaunch(const KinetoEvent& event);  // a runtime/driver call (projection material)
  void projectToGpu();
  void addStep(std::string_view name, std::int64_t startNs, std::int64_t endNs);
  void addMemory(const KinetoEvent& event);
  void countDevice(std::string_view deviceText);
  std::int32_t intern(std::string_view name);
  std::int32_t trackOf(bool gpu, std::string_view pid, std::string_view tid);

  RawRankTrace trace_;
  // Name interning without building a std::string per event: keys view `nameStore_`.
  std::deque<std::string> nameStore_;
  std::unordered_map<std::string_view, std::int32_t> nameCache_;
  std::unordered_map<std::string, std::int32_t> tracks_;
  std::string trackKey_;  // reused, so looking a track up allocates nothing
  std::string lastTrackKey_;
  std::int32_t lastTrack_ = -1;
  std::unordered_map<std::string, std::vector<PendingBegin>> openBegins_;
  ProjectionMaterial projection_;  // CPU ranges -> launches -> GPU work (GpuProjection.h)
  // The GPU work's correlation ids and events, 12 bytes a kernel instead of a GpuWork's 32: the
  // work's times and stream are in the event already. Made into projection_.gpuWork at the end
  // only when some range is left to project (a file with gpu_user_annotation has none).
  std::vector<std::int64_t> workCorrelation_;
  std::vector<std::uint32_t> workEvent_;
  std::vector<Launch>* lastLaunches_ = nullptr;  // the last launch's thread's list
  std::int32_t lastLaunchTrack_ = -1;
  std::unordered_map<std::uint64_t, std::int32_t> statedIndex_;  // StatedOp key -> its index
  KinetoGathered gathered_;  // peers, devices, first time, skip counts: for the last pass
};

}  // namespace ps::trace::import
