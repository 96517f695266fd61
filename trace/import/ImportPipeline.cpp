#include "trace/import/ImportPipeline.h"

#include <algorithm>
#include <numeric>
#include <sstream>

#include "trace/JsonWriter.h"
#include "trace/TerminalText.h"
#include "trace/Units.h"
#include "trace/import/PeerWaits.h"
#include "trace/import/ThreadRanks.h"
#include "trace/import/TimeBounds.h"
#include "trace/store/TraceStore.h"

namespace ps::trace::import {
namespace {

std::string configJson(const ImportedRun& run, const ImportOptions& options) {
  JsonWriter j;
  j.beginObject().key("import").beginObject();
  j.key("format").value(options.format);
  j.key("align").value(alignModeName(run.alignment.used));
  j.key("align_requested").value(alignModeName(options.align));
  j.key("residual_skew_ns").value(run.alignment.residualNs);
  j.key("matched_events").value(run.alignment.matchedEvents);
  // Host-side transfers: offsets from causality, residual_skew_ns is how well it knows them.
  if (!run.alignment.offsetLowNs.empty()) j.key("align_fit").value("causality");
  // Read back by `report` (importedBusyCoverage) to say when compute covers little.
  j.key("recognised_busy_ns").value(run.coverage.computeBusyNs);
  j.key("raw_busy_ns").value(run.coverage.busyNs);
  if (options.threadsAsRanks) j.key("threads_as_ranks").value(true);
  if (!options.rulesFile.empty()) j.key("rules").value(options.rulesFile);
  j.key("files").beginArray();
  for (const auto& f : run.files) {
    j.beginObject();
    j.key("path").value(f.file);
    j.key("rank").value(f.rank.originalRank);
    j.key("stored_rank").value(f.rank.storedRank);
    j.key("rank_from").value(f.rank.how);
    j.key("clock_offset_ns")
        .value(run.alignment.offsetNs[static_cast<std::size_t>(f.rank.storedRank)]);
    j.endObject();
  }
  j.endArray().endObject().endObject();
  return j.str();
}

// Maps a peer's original rank number to its stored rank; nullopt when that rank was not imported.
std::optional<int> storedPeer(const std::map<int, int>& originalToStored, int original) {
  auto it = originalToStored.find(original);
  if (it == originalToStored.end()) return std::nullopt;
  return it->second;
}

// The mean step span: per step, the compute ops' [earliest start, latest end] over all ranks (as
// the report's step time), or every op's when nothing is compute.
std::int64_t meanStepSpan(const std::vector<OpRecord>& ops) {
  const bool anyCompute =
      std::any_of(ops.begin(), ops.end(), [](const OpRecord& op) { return isCompute(op.kind); });
  std::map<int, std::pair<std::int64_t, std::int64_t>> spans;
  for (const auto& op : ops) {
    if (anyCompute && !isCompute(op.kind)) continue;
    auto [it, fresh] = spans.try_emplace(op.step, op.start_ns, op.end_ns);
    if (!fresh) {
      it->second.first = std::min(it->second.first, op.start_ns);
      it->second.second = std::max(it->second.second, op.end_ns);
    }
  }
  if (spans.empty()) return 0;
  double total = 0;  // each span is below 2^52 ns (TimeBounds), their sum need not be
  for (const auto& [step, span] : spans)
    total += static_cast<double>(span.second - span.first);
  return static_cast<std::int64_t>(total / static_cast<double>(spans.size()));
}

// Warnings about what the headline numbers of this run mean (issue 12, case 11).
void warnAboutFigures(ImportedRun& run) {
  if (run.coverage.low())
    run.warnings.push_back(lowCoverageNote(run.coverage) +
                           " (step time and bubble count only recognised compute ops; map other "
                           "labels with a rules file)");
  const std::int64_t skew = run.alignment.residualNs;
  if (run.stepSpanNs > 0 &&
      static_cast<double>(skew) > kResidualSkewWarnShare * static_cast<double>(run.stepSpanNs))
    run.warnings.push_back(
        "clock alignment (" + std::string(alignModeName(run.alignment.used)) +
        ") leaves a residual skew of " + formatDuration(skew) + ", " +
        formatPercent(static_cast<double>(skew) / static_cast<double>(run.stepSpanNs)) +
        " of the " + formatDuration(run.stepSpanNs) +
        " step: cross-rank timing (waits, bubble) is unreliable; try another --align mode");
}

// Frees what the op builder read (events, names, steps, memory samples); the file's identity and
// metadata stay.
void releaseEvents(RawRankTrace& raw) {
  std::vector<RawEvent>().swap(raw.events);
  std::vector<std::string>().swap(raw.names);
  std::vector<StepRange>().swap(raw.steps);
  std::vector<RawMemorySample>().swap(raw.memory);
  std::vector<StatedOp>().swap(raw.statedOps);
}

}  // namespace

Result<ImportedRun> assembleImport(std::vector<RawRankTrace> traces, const ImportOptions& options,
                                   const ReadControl& control) {
  if (traces.empty()) return Error{"nothing to import: no files given"};
  for (const auto& t : traces)
    PS_TRY(checkTimeSpan(t));
  PS_TRY(checkSameRun(traces));
  ImportedRun run;
  // Ranks split from one file on one clock (PipeScope's own export): no offsets to fit, and
  // their transfers are the recorded ones, waits included.
  const bool oneClock = std::all_of(traces.begin(), traces.end(), [&](const RawRankTrace& t) {
    return t.sharedClock && t.file == traces.front().file;
  });
  AlignMode align = options.align;
  if (oneClock && align == AlignMode::Auto) {
    align = AlignMode::Wall;
    if (traces.size() > 1)
      run.notes.push_back(std::to_string(traces.size()) +
                          " ranks of one file (one process each) "
                          "share its clock: no clock offsets fitted");
  }
  std::vector<std::string> threadOrigins;  // how each split trace became a rank
  if (oneClock) {
    if (options.threadsAsRanks)
      run.notes.push_back("threads as ranks: not applied, the file's processes are its ranks");
  } else if (options.threadsAsRanks && traces.size() == 1) {
    ThreadSplit split = splitThreadsAsRanks(std::move(traces.front()), options.recognizer);
    traces = std::move(split.traces);
    if (traces.size() > 1) threadOrigins = std::move(split.origins);
    run.notes.push_back(std::move(split.note));
  } else if (options.threadsAsRanks) {
    run.notes.push_back("threads as ranks: not applied, it is for a single-process trace (" +
                        std::to_string(traces.size()) + " profiles are ranks already)");
  } else if (traces.size() == 1) {
    if (const std::size_t threads = computeTrackCount(traces.front(), options.recognizer);
        threads > 1)
      run.notes.push_back(std::to_string(threads) +
                          " threads of this one process hold compute ops, which overlap on its "
                          "one rank: import with threads as ranks (--threads-as-ranks) to make "
                          "each thread a rank");
  }
  auto assigned = assignRanks(traces, options.explicitRanks);
  if (!assigned) return std::move(assigned).takeError();
  for (std::size_t i = 0; i < threadOrigins.size(); ++i)
    (*assigned)[i].how = threadOrigins[i];
  const std::size_t n = traces.size();

  std::vector<std::size_t> byStored(n);
  for (std::size_t i = 0; i < n; ++i)
    byStored[static_cast<std::size_t>((*assigned)[i].storedRank)] = i;
  std::map<int, int> originalToStored;
  for (const auto& s : *assigned)
    originalToStored[s.originalRank] = s.storedRank;

  // Build ops per stored rank. Peers named in the files are original rank numbers.
  std::vector<RankOps> ranks(n);
  std::vector<std::optional<std::int64_t>> wall(n);
  for (std::size_t r = 0; r < n; ++r) {
    RawRankTrace& raw = traces[byStored[r]];
    const RankSource& source = (*assigned)[byStored[r]];
    for (auto& e : raw.events)
      if (e.peer >= 0) e.peer = storedPeer(originalToStored, e.peer).value_or(-1);
    auto built = buildRankOps(raw, static_cast<int>(r), static_cast<int>(n), options.recognizer,
                              run.stats, control);
    if (!built) return std::move(built).takeError();
    ranks[r] = std::move(*built);
    wall[r] = raw.wallClockOffsetNs;
    run.files.push_back({raw.file, source, raw.warnings});
    // Its ops are built: the rank's events are not needed again (only its file, host and
    // device below), so a set of many large files never holds its raw events and ops at once.
    releaseEvents(raw);
  }
  std::size_t total = 0;
  for (const auto& r : ranks)
    total += r.ops.size() + r.memory.size();
  if (total == 0) {
    std::string files;
    for (const auto& t : traces)
      files += (files.empty() ? "" : ", ") + t.file;
    return Error{files + ": nothing to import (no annotations, kernels, copies or memory events)"};
  }

  std::vector<std::string> rankFiles(n);
  for (std::size_t r = 0; r < n; ++r)
    rankFiles[r] = traces[byStored[r]].file;
  PS_TRY(checkClockWindow(ranks, rankFiles));
  auto alignment = alignClocks(ranks, wall, align);
  if (!alignment) return std::move(alignment).takeError();
  run.alignment = std::move(*alignment);

  // Common axis: offsets applied (checked: no time wraps), then the earliest event moved to 0.
  PS_TRY(shiftByOffsets(ranks, run.alignment.offsetNs, rankFiles));
  std::int64_t origin = INT64_MAX;
  int minStep = INT32_MAX;
  for (std::size_t r = 0; r < n; ++r) {
    for (const auto& op : ranks[r].ops) {
      origin = std::min(origin, op.start_ns);
      if (op.step >= 0) minStep = std::min(minStep, op.step);
    }
    for (const auto& m : ranks[r].memory)
      origin = std::min(origin, m.t_ns);
  }
  if (!oneClock) run.peerWaits = splitPeerWaits(ranks);
  if (minStep == INT32_MAX) minStep = 0;
  int maxStage = -1, maxMb = -1;
  std::size_t opCount = 0, sampleCount = 0;
  for (const auto& rank : ranks) {
    opCount += rank.ops.size();
    sampleCount += rank.memory.size();
  }
  run.ops.reserve(opCount);
  run.memory.reserve(sampleCount);
  for (auto& rank : ranks) {
    for (auto& op : rank.ops) {
      op.start_ns -= origin;
      op.end_ns -= origin;
      op.step = op.step >= 0 ? op.step - minStep : 0;
      run.steps = std::max(run.steps, op.step + 1);
      maxStage = std::max(maxStage, op.stage.value_or(-1));
      maxMb = std::max(maxMb, op.microbatch.value_or(-1));
    }
    std::stable_sort(rank.ops.begin(), rank.ops.end(),
                     [](const OpRecord& a, const OpRecord& b) { return a.start_ns < b.start_ns; });
    for (auto& m : rank.memory)
      m.t_ns -= origin;
    run.ops.insert(run.ops.end(), std::make_move_iterator(rank.ops.begin()),
                   std::make_move_iterator(rank.ops.end()));
    run.memory.insert(run.memory.end(), rank.memory.begin(), rank.memory.end());
    rank = RankOps{};  // moved into the run: freed now, not at the end
  }

  run.coverage = busyCoverage(run.ops);
  run.stepSpanNs = meanStepSpan(run.ops);
  warnAboutFigures(run);

  RunInfo& info = run.header.info;
  info.source = options.format;
  info.name =
      options.name.empty() ? options.format + " import: " + traces[byStored[0]].file : options.name;
  info.num_ranks = static_cast<int>(n);
  if (maxStage >= 0) info.num_stages = maxStage + 1;
  if (maxMb >= 0) info.num_microbatches = maxMb + 1;
  info.config_json = configJson(run, options);
  for (std::size_t r = 0; r < n; ++r) {
    const RawRankTrace& raw = traces[byStored[r]];
    RankInfo rank;
    rank.rank = static_cast<int>(r);
    rank.host = raw.host;
    rank.device = raw.device;
    rank.memory_capacity_bytes = raw.memoryCapacityBytes;
    rank.clock_offset_ns = run.alignment.offsetNs[r];
    run.header.ranks.push_back(std::move(rank));
  }
  return run;
}

Result<std::int64_t> writeImportedRun(TraceStore& store, const ImportedRun& run,
                                      const ReadControl& control) {
  auto writer = TraceWriter::begin(store, run.header);
  if (!writer) return std::move(writer).takeError();
  const std::int64_t runId = writer->runId();
  auto abandon = [&](std::string message) -> Result<std::int64_t> {
    (void)store.deleteRun(runId);
    return Error{std::move(message)};
  };
  constexpr std::size_t kBatch = 200'000;
  const std::size_t total = run.ops.size() + run.memory.size();
  std::size_t done = 0;
  for (std::size_t i = 0; i < run.ops.size(); i += kBatch) {
    if (control.cancelled()) return abandon("import cancelled");
    const std::size_t end = std::min(run.ops.size(), i + kBatch);
    if (auto s = writer->writeOps({run.ops.data() + i, end - i}); !s) return abandon(s.error());
    done = end;
    control.report(static_cast<double>(done) /
                   static_cast<double>(std::max<std::size_t>(total, 1)));
  }
  TraceBatch memory;
  memory.memory = run.memory;
  if (!memory.empty())
    if (auto s = writer->write(memory); !s) return abandon(s.error());
  if (auto s = writer->finish(RunStatus::Complete); !s) return abandon(s.error());
  return runId;
}

std::string formatImportSummary(const ImportedRun& run, std::size_t maxUnknownLabels) {
  std::ostringstream out;
  out << run.header.info.num_ranks << " rank(s), " << run.steps << " step(s), " << run.ops.size()
      << " ops, " << run.memory.size() << " memory samples\n";
  out << "ops by kind:";
  for (int k = 0; k < kOpKindCount; ++k)
    if (run.stats.opsByKind[k] > 0)
      out << ' ' << opKindName(static_cast<OpKind>(k)) << '=' << run.stats.opsByKind[k];
  out << '\n';
  out << "labels: " << run.stats.recognisedLabels << " recognised, "
      << std::accumulate(run.stats.unknownLabels.begin(), run.stats.unknownLabels.end(),
                         std::int64_t{0},
                         [](std::int64_t a, const auto& kv) { return a + kv.second; })
      << " unknown (" << run.stats.unknownLabels.size() << " distinct)\n";
  if (run.stats.nestedTransfers > 0)
    out << run.stats.nestedTransfers
        << " communication ranges (c10d / gloo / nccl calls) inside labelled transfers are part "
           "of them, not ops\n";
  if (!run.stats.unknownLabels.empty()) {
    std::vector<std::pair<std::string, std::int64_t>> top(run.stats.unknownLabels.begin(),
                                                          run.stats.unknownLabels.end());
    std::stable_sort(top.begin(), top.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    out << "unknown labels:";
    for (std::size_t i = 0; i < std::min(top.size(), maxUnknownLabels); ++i)
      out << (i ? ", " : " ") << '"' << terminalSafe(top[i].first, 80) << "\" x" << top[i].second;
    if (top.size() > maxUnknownLabels) out << ", ...";
    out << '\n';
  }
  const ClockAlignment& align = run.alignment;
  const bool causal = !align.offsetLowNs.empty();  // host-side p2p: fitted by causality
  out << "clock alignment: " << alignModeName(align.used)
      << (causal ? " (causality), offsets known within ±" : ", residual skew ")
      << formatDuration(align.residualNs) << " over " << align.matchedEvents << " matched events\n";
  for (const auto& f : run.files) {
    const auto r = static_cast<std::size_t>(f.rank.storedRank);
    out << "  rank " << f.rank.storedRank << " <- " << terminalSafe(f.file) << " (rank "
        << f.rank.originalRank << " from " << f.rank.how << "), clock offset "
        << formatDuration(align.offsetNs[r]);
    if (causal && r > 0 && align.offsetLowNs[r] != INT64_MIN && align.offsetHighNs[r] != INT64_MAX)
      out << " ±" << formatDuration((align.offsetHighNs[r] - align.offsetLowNs[r]) / 2);
    out << '\n';
  }
  if (run.peerWaits > 0) out << run.peerWaits << " send/receive waits for the peer split off\n";
  if (const auto ratio = run.coverage.ratio())
    out << "busy time " << formatDuration(run.coverage.busyNs) << " over all ranks, "
        << formatPercent(*ratio) << " of it recognised compute\n";
  // Notes and warnings can quote the files (names, paths): made safe as a whole, with room.
  constexpr std::size_t kLineCap = 1000;
  for (const auto& note : run.notes)
    out << "note: " << terminalSafe(note, kLineCap) << '\n';
  for (const auto& note : run.alignment.notes)
    out << "note: " << terminalSafe(note, kLineCap) << '\n';
  for (const auto& f : run.files)
    for (const auto& w : f.warnings)
      out << "warning: " << terminalSafe(f.file) << ": " << terminalSafe(w, kLineCap) << '\n';
  for (const auto& w : run.warnings)
    out << "warning: " << terminalSafe(w, kLineCap) << '\n';
  return out.str();
}

}  // namespace ps::trace::import
