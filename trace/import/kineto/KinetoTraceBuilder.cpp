#include "trace/import/kineto/KinetoTraceBuilder.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "trace/import/kineto/KinetoCommArgs.h"
#include "trace/import/kineto/KinetoNumber.h"

namespace ps::trace::import {

namespace {

constexpr std::string_view kProfilerStep = "ProfilerStep#";

bool isGpuCategory(KinetoCategory c) {
  return c == KinetoCategory::GpuUserAnnotation || c == KinetoCategory::Kernel ||
         c == KinetoCategory::Memcpy || c == KinetoCategory::Memset;
}

// Host categories whose "ProfilerStep#N" ranges are step markers.
bool mayHoldSteps(KinetoCategory c) {
  return c == KinetoCategory::UserAnnotation || c == KinetoCategory::CpuOp ||
         c == KinetoCategory::Missing;
}

// Whether events of this category are imported (ProfilerStep aside). Stated ops are read from
// complete events only (addStated): PipeScope's export writes no others.
bool isImported(KinetoCategory c) {
  return c != KinetoCategory::CpuOp && c != KinetoCategory::Other &&
         c != KinetoCategory::StatedOp && c != KinetoCategory::Launch;
}

constexpr std::string_view kPipeScopeMemoryCounter = "memory in use";

std::int32_t int32OrMinusOne(std::string_view text) {
  const auto v = parseInteger(text);
  return v && *v >= 0 && *v <= INT32_MAX ? static_cast<std::int32_t>(*v) : -1;
}

}  // namespace

KinetoTraceBuilder::KinetoTraceBuilder(std::string file) {
  trace_.file = std::move(file);
  trace_.format = "kineto";
}

void KinetoTraceBuilder::add(const KinetoEvent& event) {
  switch (event.phase) {
    case KinetoPhase::Complete:
      return addComplete(event);
    case KinetoPhase::Begin:
      return addBegin(event);
    case KinetoPhase::End:
      return addEnd(event);
    case KinetoPhase::Instant:
      if (event.name == "[memory]") addMemory(event);
      return;
    case KinetoPhase::Counter:
      if (event.name == kPipeScopeMemoryCounter) addRankMemory(event);
      return;
    case KinetoPhase::Other:
      return;
  }
}

RawRankTrace KinetoTraceBuilder::finish(const KinetoMetadata& meta) {
  assignKinetoSteps(trace_);
  projectToGpu();
  for (const auto& [key, stack] : openBegins_)
    gathered_.unclosedBegins += stack.size();
  finishKinetoTrace(trace_, gathered_, meta);
  return std::move(trace_);
}

// CPU ranges onto the GPU work they launched (issue 31 §1), unless the file has the GPU side of a
// label already (gpu_user_annotation wins: Kineto drew it from the same correlation ids). The
// CPU nesting is computed first: projection keeps it as the tie-break of equal GPU spans.
void KinetoTraceBuilder::projectToGpu() {
  assignAnnotationDepths(trace_);
  std::vector<bool> onGpu(trace_.names.size(), false);
  for (const RawEvent& e : trace_.events)
    if (e.source == EventSource::GpuAnnotation && e.name >= 0) onGpu[e.name] = true;
  auto& ranges = projection_.ranges;
  ranges.erase(std::remove_if(ranges.begin(), ranges.end(),
                              [&](const RangeRef& r) {
                                const std::int32_t name = trace_.events[r.event].name;
                                return name >= 0 && onGpu[static_cast<std::size_t>(name)];
                              }),
               ranges.end());
  lastLaunches_ = nullptr;
  if (!ranges.empty()) {
    auto& work = projection_.gpuWork;
    work.reserve(workEvent_.size());
    for (std::size_t i = 0; i < workEvent_.size(); ++i) {
      const RawEvent& e = trace_.events[workEvent_[i]];
      work.push_back({workCorrelation_[i], e.start_ns, e.end_ns, e.track});
    }
  }
  std::vector<std::int64_t>().swap(workCorrelation_);
  std::vector<std::uint32_t>().swap(workEvent_);
  if (projectRangesToGpu(trace_, projection_) > 0) assignAnnotationDepths(trace_);
}

void KinetoTraceBuilder::addComplete(const KinetoEvent& event) {
  const bool step = event.profilerStep && mayHoldSteps(event.category);
  if (event.category == KinetoCategory::Launch) return addLaunch(event);
  const bool stated = event.category == KinetoCategory::StatedOp;
  if (!step && !stated && (!isImported(event.category) || event.profilerStep)) return;
  const auto start = parseMicrosAsNanos(event.ts);
  if (!start) {
    ++gathered_.badTimes;
    return;
  }
  const std::int64_t dur = std::max<std::int64_t>(0, parseMicrosAsNanos(event.dur).value_or(0));
  const std::int64_t end =
      *start > std::numeric_limits<std::int64_t>::max() - dur ? *start : *start + dur;
  if (step)
    addStep(event.name, *start, end);
  else if (stated)
    addStated(event, *start, end);
  else
    addRange(event, *start, end);
}

// B/E pairs nest per (pid, tid).
std::string KinetoTraceBuilder::threadKey(const KinetoEvent& event) {
  std::string key(event.pid);
  key += '\x1f';
  key += event.tid;
  return key;
}

void KinetoTraceBuilder::addBegin(const KinetoEvent& event) {
  PendingBegin begin;
  begin.category = event.category;
  begin.profilerStep = event.profilerStep;
  const auto start = parseMicrosAsNanos(event.ts);
  const bool wanted = (event.profilerStep && mayHoldSteps(event.category)) ||
                      (!event.profilerStep && isImported(event.category));
  if (!wanted || !start) {
    if (wanted) ++gathered_.badTimes;
    begin.category = KinetoCategory::Other;  // keeps the B/E pairing, imports nothing
    begin.profilerStep = false;
  } else {
    begin.name = event.name;
    begin.startNs = *start;
  }
  openBegins_[threadKey(event)].push_back(std::move(begin));
}

void KinetoTraceBuilder::addEnd(const KinetoEvent& event) {
  auto it = openBegins_.find(threadKey(event));
  if (it == openBegins_.end() || it->second.empty()) {
    ++gathered_.unmatchedEnds;
    return;
  }
  PendingBegin begin = std::move(it->second.back());
  it->second.pop_back();
  if (begin.category == KinetoCategory::Other && !begin.profilerStep) return;
  const auto end = parseMicrosAsNanos(event.ts);
  if (!end) {
    ++gathered_.badTimes;
    return;
  }
  const std::int64_t endNs = std::max(*end, begin.startNs);
  if (begin.profilerStep) return addStep(begin.name, begin.startNs, endNs);
  KinetoEvent range = event;
  range.category = begin.category;
  range.name = begin.name;
  addRange(range, begin.startNs, endNs);
}

void KinetoTraceBuilder::addRange(const KinetoEvent& event, std::int64_t startNs,
                                  std::int64_t endNs) {
  RawEvent raw;
  raw.start_ns = startNs;
  raw.end_ns = endNs;
  raw.name = intern(event.name);
  const bool gpu = isGpuCategory(event.category);
  switch (event.category) {
    case KinetoCategory::Missing:
    case KinetoCategory::UserAnnotation:
      raw.source = EventSource::CpuAnnotation;
      break;
    case KinetoCategory::GpuUserAnnotation:
      raw.source = EventSource::GpuAnnotation;
      break;
    case KinetoCategory::Kernel:
      raw.source = EventSource::Kernel;
      raw.comm = commOpFromKernelName(event.name);
      if (raw.comm != CommOp::None) {
        raw.source = EventSource::NcclKernel;
        if (const auto open = readNcclArgs(event, raw))
          gathered_.ncclPeers.push_back({trace_.events.size(), *open});
      }
      break;
    case KinetoCategory::Memcpy:
      raw.source = EventSource::Memcpy;
      if (const auto devices = readCopyArgs(event, raw))
        gathered_.copyPeers.push_back({trace_.events.size(), *devices});
      break;
    case KinetoCategory::Memset:
      raw.source = EventSource::Memset;
      raw.bytes = parseCountOrMinusOne(event.bytes);
      break;
    case KinetoCategory::CpuOp:
    case KinetoCategory::StatedOp:
    case KinetoCategory::Other:
      return;
  }
  if (gpu && !event.device.empty()) countDevice(event.device);
  raw.track = trackOf(gpu, event.pid, event.tid);
  gathered_.minStartNs = std::min(gathered_.minStartNs, startNs);
  // Projection material: host ranges, and the GPU work their launches name.
  if (raw.source == EventSource::CpuAnnotation) {
    projection_.ranges.push_back({raw.track, trace_.events.size()});
  } else if (raw.source != EventSource::GpuAnnotation && !event.correlation.empty() &&
             trace_.events.size() <= UINT32_MAX) {
    if (const auto id = parseInteger(event.correlation); id && *id > 0) {
      workCorrelation_.push_back(*id);
      workEvent_.push_back(static_cast<std::uint32_t>(trace_.events.size()));
    }
  }
  trace_.events.push_back(raw);
}

void KinetoTraceBuilder::addLaunch(const KinetoEvent& event) {
  const auto id = parseInteger(event.correlation);
  const auto start = parseMicrosAsNanos(event.ts);
  if (!id || *id <= 0 || !start) return;
  const std::int32_t track = trackOf(false, event.pid, event.tid);
  if (track != lastLaunchTrack_ || lastLaunches_ == nullptr) {
    lastLaunches_ = &projection_.launches[track];
    lastLaunchTrack_ = track;
  }
  lastLaunches_->push_back({*start, *id});
}

void KinetoTraceBuilder::addStated(const KinetoEvent& event, std::int64_t startNs,
                                   std::int64_t endNs) {
  const auto kind = parseOpKind(event.kind);
  const std::int32_t rank = int32OrMinusOne(event.pid);
  if (!kind || rank < 0) {  // an op kind's name as "cat", but no op stated: a plain label
    KinetoEvent label = event;
    label.category = KinetoCategory::Missing;
    addRange(label, startNs, endNs);
    return;
  }
  const StatedOp op{*kind, int32OrMinusOne(event.stage), int32OrMinusOne(event.microbatch)};
  auto [it, fresh] = statedIndex_.try_emplace(
      (static_cast<std::uint64_t>(op.kind) << 56) ^
          (static_cast<std::uint64_t>(static_cast<std::uint32_t>(op.stage)) << 28) ^
          static_cast<std::uint32_t>(op.microbatch),
      static_cast<std::int32_t>(trace_.statedOps.size()));
  if (fresh || trace_.statedOps[static_cast<std::size_t>(it->second)] != op) {
    it->second = static_cast<std::int32_t>(trace_.statedOps.size());
    trace_.statedOps.push_back(op);
  }
  RawEvent raw;
  raw.start_ns = startNs;
  raw.end_ns = endNs;
  raw.name = intern(event.name);
  raw.source = EventSource::CpuAnnotation;
  raw.stated = it->second;
  raw.step = int32OrMinusOne(event.step);
  raw.peer = int32OrMinusOne(event.peer);
  raw.bytes = parseCountOrMinusOne(event.bytes);
  raw.track = trackOf(false, event.pid, event.tid);
  trace_.rankOfTrack[raw.track] = rank;
  gathered_.minStartNs = std::min(gathered_.minStartNs, startNs);
  trace_.events.push_back(raw);
}

void KinetoTraceBuilder::addRankMemory(const KinetoEvent& event) {
  const std::int32_t rank = int32OrMinusOne(event.pid);
  const auto bytes = parseInteger(event.bytes);
  const auto t = parseMicrosAsNanos(event.ts);
  if (rank < 0 || !bytes || !t) {
    ++gathered_.badTimes;
    return;
  }
  trace_.memoryOfRank[rank].push_back({*t, *bytes});
  gathered_.minStartNs = std::min(gathered_.minStartNs, *t);
}

void KinetoTraceBuilder::addStep(std::string_view name, std::int64_t startNs, std::int64_t endNs) {
  if (name.substr(0, kProfilerStep.size()) != kProfilerStep) return;
  const auto number = parseInteger(name.substr(kProfilerStep.size()));
  if (!number) return;
  trace_.steps.push_back({startNs, endNs, *number});
  gathered_.minStartNs = std::min(gathered_.minStartNs, startNs);
}

void KinetoTraceBuilder::addMemory(const KinetoEvent& event) {
  const auto device = parseInteger(event.memoryDevice);
  if (!device || *device < 0) return;  // -1: host memory
  const auto bytes = parseInteger(event.totalAllocated);
  const auto t = parseMicrosAsNanos(event.ts);
  if (!bytes || !t) {
    ++gathered_.badTimes;
    return;
  }
  gathered_.memoryOnDevice[*device].push_back({*t, *bytes});
  gathered_.minStartNs = std::min(gathered_.minStartNs, *t);
}

void KinetoTraceBuilder::countDevice(std::string_view deviceText) {
  const auto device = parseInteger(deviceText);
  if (device) ++gathered_.gpuEventsOnDevice[*device];
}

std::int32_t KinetoTraceBuilder::intern(std::string_view name) {
  auto it = nameCache_.find(name);
  if (it != nameCache_.end()) return it->second;
  const std::string& stored = nameStore_.emplace_back(name);
  const std::int32_t index = trace_.intern(stored);
  nameCache_.emplace(std::string_view(stored), index);
  return index;
}

std::int32_t KinetoTraceBuilder::trackOf(bool gpu, std::string_view pid, std::string_view tid) {
  trackKey_.assign(1, gpu ? 'G' : 'H');
  trackKey_.append(pid);
  trackKey_ += '\x1f';
  trackKey_.append(tid);
  if (lastTrack_ >= 0 && trackKey_ == lastTrackKey_) return lastTrack_;
  auto it = tracks_.find(trackKey_);
  if (it == tracks_.end()) {
    it = tracks_.emplace(trackKey_, static_cast<std::int32_t>(tracks_.size())).first;
    // A host thread's id orders threads-as-ranks; "tid" is a number, or a quoted one.
    std::string_view digits = tid;
    if (digits.size() >= 2 && digits.front() == '"' && digits.back() == '"')
      digits = digits.substr(1, digits.size() - 2);
    std::int64_t id = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (!gpu && ec == std::errc() && end == digits.data() + digits.size() && !digits.empty())
      trace_.threadIds[it->second] = id;
  }
  lastTrackKey_ = trackKey_;
  lastTrack_ = it->second;
  return lastTrack_;
}

}  // namespace ps::trace::import
