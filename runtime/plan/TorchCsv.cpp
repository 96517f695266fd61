#include "runtime/plan/TorchCsv.h"

#include <algorithm>
#include <utility>

#include "trace/FileText.h"

namespace ps::runtime {
namespace {

std::string at(std::string_view source, const TorchCsvAction& a) {
  return std::string(source) + ":" + std::to_string(a.line) + ": cell " + std::to_string(a.cell);
}

bool isComputeKind(OpKind k) {
  return k == OpKind::F || k == OpKind::B || k == OpKind::I || k == OpKind::W;
}

// Places every stage as torch does: on the rank whose row holds its forward. Stages without a
// forward in the file take the rank of their first other compute action.
Status inferPlacement(const std::vector<std::vector<TorchCsvAction>>& rows, std::string_view source,
                      int numStages, std::vector<int>& rankOf) {
  rankOf.assign(numStages, -1);
  std::vector<const TorchCsvAction*> placedBy(numStages, nullptr);
  for (bool forwardPass : {true, false})
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (const auto& a : rows[r]) {
        if (!isComputeKind(a.action.kind) || (a.action.kind == OpKind::F) != forwardPass) continue;
        const int s = a.action.stage;
        if (rankOf[s] < 0) {
          rankOf[s] = static_cast<int>(r);
          placedBy[s] = &a;
        } else if (rankOf[s] != static_cast<int>(r)) {
          const auto& first = *placedBy[s];
          return Error{at(source, a) + " '" + actionLabel(a.action) + "': stage " +
                       std::to_string(s) + " is computed on rank " + std::to_string(r) +
                       " but also on rank " + std::to_string(rankOf[s]) + " ('" +
                       actionLabel(first.action) + "', line " + std::to_string(first.line) +
                       ", cell " + std::to_string(first.cell) +
                       "); each stage must live on one rank"};
        }
      }
  for (int s = 0; s < numStages; ++s)
    if (rankOf[s] < 0)
      return Error{std::string(source) + ": no rank computes stage " + std::to_string(s) +
                   " (the file uses stages 0.." + std::to_string(numStages - 1) + ")"};
  return {};
}

// The peer of a communication action on a chain of stages, as torch's lowering pairs them:
// SEND_F of stage s goes to s+1, RECV_F of s comes from s-1, SEND_B of s goes to s-1, RECV_B of
// s comes from s+1. -1 where that stage does not exist.
int chainPeer(const Action& a, const std::vector<int>& rankOf) {
  int other = -1;
  if (a.kind == OpKind::SEND_F || a.kind == OpKind::RECV_B) other = a.stage + 1;
  if (a.kind == OpKind::RECV_F || a.kind == OpKind::SEND_B) other = a.stage - 1;
  if (other < 0 || other >= static_cast<int>(rankOf.size())) return -1;
  return rankOf[other];
}

Status buildPlan(TorchCsvSchedule& out, std::string_view source) {
  int maxStage = -1, maxMb = -1;
  bool split = false;
  std::size_t fsdpActions = 0, forwards = 0;
  for (const auto& row : out.rankActions)
    for (const auto& a : row) {
      if (a.action.kind == OpKind::OTHER) ++fsdpActions;
      if (!isComputeKind(a.action.kind)) continue;
      maxStage = std::max(maxStage, a.action.stage);
      maxMb = std::max(maxMb, a.action.microbatch);
      if (a.action.kind == OpKind::F) ++forwards;
      split = split || a.action.kind == OpKind::I || a.action.kind == OpKind::W;
    }
  if (maxStage < 0)
    return Error{std::string(source) + ": no compute actions (expected cells like 0F0, 0B0)"};

  // Every (stage, micro-batch) needs its forward; indexes far beyond what the file holds are
  // typos (and would size the plan from a stray number). Small gaps are left to the validator,
  // whose message names the missing ops.
  const auto cells =
      static_cast<std::uint64_t>(maxStage + 1) * static_cast<std::uint64_t>(maxMb + 1);
  if (cells > 2 * forwards + 1024)
    return Error{std::string(source) + ": cells name stages up to " + std::to_string(maxStage) +
                 " and micro-batches up to " + std::to_string(maxMb) +
                 ", but the file holds only " + std::to_string(forwards) +
                 " forward actions (expected one per stage and micro-batch)"};

  Plan& p = out.plan;
  p.schedule = "custom";
  p.numRanks = static_cast<int>(out.rankActions.size());
  p.numStages = maxStage + 1;
  // Interleaved files hold the same number of stages per rank; other layouts round up.
  p.chunks = (p.numStages + p.numRanks - 1) / p.numRanks;
  p.numLayers = p.numStages;
  p.splitBackward = split;
  p.microbatches.assign(maxMb + 1, MicrobatchSpec{});

  std::vector<int> rankOf;
  PS_TRY(inferPlacement(out.rankActions, source, p.numStages, rankOf));
  p.placement.assign(1, {});
  for (int s = 0; s < p.numStages; ++s)
    p.placement[0].push_back({rankOf[s], s, s});

  // Compute actions only: UNSHARD/RESHARD/REDUCE_GRAD are FSDP work the plan does not model
  // (they stay in rankActions); communication is re-derived from placement by lowering.
  p.programs.assign(p.numRanks, {});
  for (int r = 0; r < p.numRanks; ++r)
    for (auto& a : out.rankActions[r]) {
      if (trace::isSend(a.action.kind) || trace::isRecv(a.action.kind))
        a.action.peer = chainPeer(a.action, rankOf);
      if (isComputeKind(a.action.kind)) p.programs[r].push_back(a.action);
    }
  if (fsdpActions > 0)
    out.notes.push_back(std::string(source) + ": " + std::to_string(fsdpActions) +
                        " UNSHARD/RESHARD/REDUCE_GRAD actions kept as raw actions only (FSDP "
                        "work the plan does not model)");
  return {};
}

}  // namespace

Result<TorchCsvSchedule> torchCsvSchedule(trace::import::TorchCsvRows rows,
                                          std::string_view sourceName) {
  TorchCsvSchedule out;
  out.form = rows.form;
  out.legacyEncoding = rows.legacyEncoding;
  out.notes = std::move(rows.notes);
  out.rankActions.reserve(rows.ranks.size());
  for (auto& row : rows.ranks) {
    auto& actions = out.rankActions.emplace_back();
    actions.reserve(row.size());
    for (auto& cell : row) {
      TorchCsvAction& a = actions.emplace_back();
      a.action.kind = cell.kind;
      a.action.stage = cell.stage;
      a.action.microbatch = cell.microbatch;
      a.action.overlapNext = cell.overlapNext;
      a.kindName = std::move(cell.kindName);
      a.line = cell.line;
      a.cell = cell.cell;
    }
  }
  PS_TRY(buildPlan(out, sourceName));
  return out;
}

Result<TorchCsvSchedule> parseTorchCsv(std::string_view text, std::string_view sourceName) {
  auto rows = trace::import::parseTorchCsvRows(text, sourceName);
  if (!rows) return std::move(rows).takeError();
  return torchCsvSchedule(std::move(*rows), sourceName);
}

Result<TorchCsvSchedule> readTorchCsv(const std::string& path) {
  auto rows = trace::import::readTorchCsvRows(path);
  if (!rows) return std::move(rows).takeError();
  return torchCsvSchedule(std::move(*rows), path);
}

std::string torchCellText(const std::vector<Action>& unit) {
  if (unit.size() == 1) return actionLabel(unit.front());
  std::string out = "(";
  for (std::size_t i = 0; i < unit.size(); ++i)
    out += (i ? ";" : "") + actionLabel(unit[i]);
  return out + ")OVERLAP_F_B";
}

namespace {

// Writes rows of cells; an overlap unit (actions chained by overlapNext) becomes one cell.
template <typename Keep>
std::string writeRows(const std::vector<std::vector<Action>>& programs, Keep keep) {
  std::string out;
  for (const auto& program : programs) {
    bool firstCell = true;
    std::vector<Action> unit;
    for (std::size_t i = 0; i < program.size(); ++i) {
      if (keep(program[i])) unit.push_back(program[i]);
      if (program[i].overlapNext && i + 1 < program.size()) continue;
      if (unit.empty()) continue;
      out += (firstCell ? "" : ",") + torchCellText(unit);
      firstCell = false;
      unit.clear();
    }
    out += '\n';
  }
  return out;
}

}  // namespace

std::string writeTorchCsvComputeOnly(const Plan& plan) {
  return writeRows(plan.programs,
                   [](const Action& a) { return a.step == 0 && isComputeKind(a.kind); });
}

std::string writeTorchCsvComms(const std::vector<std::vector<Action>>& programs) {
  return writeRows(programs, [](const Action&) { return true; });
}

Status writeTorchCsvFile(const std::string& path, std::string_view text) {
  return trace::writeTextFile(path, text, "torch schedule CSV");
}

}  // namespace ps::runtime
