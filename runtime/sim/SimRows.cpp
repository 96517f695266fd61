#include "runtime/sim/SimRows.h"

#include <algorithm>
#include <vector>

#include "trace/store/RunTraceBuilder.h"

namespace ps::runtime {
namespace {

// Items (ops and memory samples) per write transaction: small enough that a cancel is seen
// within a few milliseconds even under the sanitizers, large enough that the commits cost
// nothing next to the inserts.
constexpr std::size_t kItemsPerWrite = 4096;

}  // namespace

bool visitSimRows(const SimResult& sim, int steps,
                  const std::function<bool(const trace::OpRecord&)>& op,
                  const std::function<bool(const trace::MemorySample&)>& memory) {
  steps = std::max(steps, 1);
  // Which records, transfers and samples belong to each step (indexes, not copies: a plan of
  // millions of ops would otherwise hold every OpRecord at once).
  std::vector<std::vector<std::uint32_t>> records(steps), transfers(steps), samples(steps);
  std::vector<std::int64_t> stepEnd(steps, 0);
  auto stepOf = [steps](int step) { return std::clamp(step, 0, steps - 1); };
  for (std::size_t i = 0; i < sim.records.size(); ++i) {
    const int k = stepOf(sim.records[i].step);
    records[k].push_back(static_cast<std::uint32_t>(i));
    stepEnd[k] = std::max(stepEnd[k], sim.records[i].end_ns);
  }
  for (std::size_t i = 0; i < sim.transfers.size(); ++i) {
    const SimRecord send = sendRecord(sim, sim.transfers[i]);
    const SimRecord recv = recvRecord(sim, sim.transfers[i]);
    const int k = stepOf(send.step);
    transfers[k].push_back(static_cast<std::uint32_t>(i));
    stepEnd[k] = std::max({stepEnd[k], send.end_ns, recv.end_ns});
  }
  for (int k = 1; k < steps; ++k)
    stepEnd[k] = std::max(stepEnd[k], stepEnd[k - 1]);
  for (std::size_t i = 0; i < sim.memory.size(); ++i) {
    const auto it = std::lower_bound(stepEnd.begin(), stepEnd.end(), sim.memory[i].t_ns);
    samples[std::min<std::ptrdiff_t>(it - stepEnd.begin(), steps - 1)].push_back(
        static_cast<std::uint32_t>(i));
  }
  for (int k = 0; k < steps; ++k) {
    for (const std::uint32_t i : records[k])
      if (!op(toOpRecord(sim.records[i]))) return false;
    for (const std::uint32_t i : transfers[k]) {
      const SimTransfer& t = sim.transfers[i];
      if (!op(toOpRecord(sendRecord(sim, t))) || !op(toOpRecord(recvRecord(sim, t)))) return false;
    }
    for (const std::uint32_t i : samples[k])
      if (!memory(sim.memory[i])) return false;
  }
  return true;
}

Result<SimWrite> writeSimRun(trace::TraceStore& store, const trace::RunHeader& header,
                             const SimResult& sim, int steps, const std::atomic<bool>* cancel,
                             const std::function<void(std::int64_t runId)>& begun) {
  auto writer = trace::TraceWriter::begin(store, header);
  if (!writer) return std::move(writer).takeError();
  SimWrite out;
  out.runId = writer->runId();
  if (begun) begun(out.runId);
  trace::TraceBatch batch;
  std::int64_t itemsWritten = 0;
  const std::int64_t itemsTotal =
      static_cast<std::int64_t>(sim.records.size() + 2 * sim.transfers.size() + sim.memory.size());
  auto flush = [&]() -> Status {
    if (batch.empty()) return {};
    PS_TRY(writer->write(batch));
    itemsWritten += static_cast<std::int64_t>(batch.ops.size() + batch.memory.size());
    batch.clear();
    return {};
  };
  // Writes the batch once full; false when the write failed or a cancel came.
  auto full = [&]() -> bool {
    if (batch.ops.size() + batch.memory.size() < kItemsPerWrite) return true;
    if (auto s = flush(); !s) {
      out.status = trace::RunStatus::Failed;
      out.message = s.error();
      return false;
    }
    if (cancel && cancel->load()) {
      out.status = trace::RunStatus::Cancelled;
      out.message = "cancelled while writing (" + std::to_string(itemsWritten) + " of " +
                    std::to_string(itemsTotal) + " ops and memory samples written)";
      return false;
    }
    return true;
  };
  bool going = !(cancel && cancel->load());
  if (!going) {
    out.status = trace::RunStatus::Cancelled;
    out.message = "cancelled before writing";
  } else {
    going = visitSimRows(
        sim, steps,
        [&](const trace::OpRecord& op) {
          batch.ops.push_back(op);
          return full();
        },
        [&](const trace::MemorySample& sample) {
          batch.memory.push_back(sample);
          return full();
        });
  }
  if (going)
    if (auto s = flush(); !s) {
      out.status = trace::RunStatus::Failed;
      out.message = s.error();
    }
  if (auto finished = writer->finish(out.status, out.message); !finished)
    if (out.status == trace::RunStatus::Complete) {
      out.status = trace::RunStatus::Failed;
      out.message = finished.error();
    }
  return out;
}

trace::RunTrace simRunTrace(const trace::RunHeader& header, const SimResult& sim, int steps) {
  trace::RunTraceBuilder builder(header);
  visitSimRows(
      sim, steps,
      [&](const trace::OpRecord& op) {
        builder.addOp(op);
        return true;
      },
      [&](const trace::MemorySample& sample) {
        builder.addMemory(sample);
        return true;
      });
  return std::move(builder).finish(trace::RunStatus::Complete, {});
}

}  // namespace ps::runtime
