#include "runtime/plan/TorchCsv.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <utility>

#include "runtime/plan/TorchCsvCell.h"
#include "trace/FileText.h"

namespace ps::runtime {
namespace {

// Splits text into rows as Python's csv module does for torch's files: "\n", "\r\n" or "\r"
// end a row; only the final terminator is dropped. Blank rows (nothing but spaces: not even a
// comma, which would mark idle slots) are the caller's to judge (parseTorchCsv).
std::vector<std::string_view> splitRows(std::string_view text) {
  std::vector<std::string_view> rows;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n' && text[i] != '\r') continue;
    rows.push_back(text.substr(start, i - start));
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    start = i + 1;
  }
  if (start < text.size()) rows.push_back(text.substr(start));
  return rows;
}

// Splits a row on commas outside double quotes (torch never quotes, spreadsheets may).
std::vector<std::string_view> splitCells(std::string_view row) {
  std::vector<std::string_view> cells;
  bool quoted = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= row.size(); ++i) {
    if (i < row.size() && row[i] == '"') quoted = !quoted;
    if (i == row.size() || (row[i] == ',' && !quoted)) {
      cells.push_back(row.substr(start, i - start));
      start = i + 1;
    }
  }
  return cells;
}

std::string_view trimCell(std::string_view s) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '"'; };
  while (!s.empty() && blank(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && blank(s.back()))
    s.remove_suffix(1);
  return s;
}

std::string at(std::string_view source, const TorchCsvAction& a) {
  return std::string(source) + ":" + std::to_string(a.line) + ": cell " + std::to_string(a.cell);
}

bool isComputeKind(OpKind k) {
  return k == OpKind::F || k == OpKind::B || k == OpKind::I || k == OpKind::W;
}

// Decides the encoding (see the header) and maps B/BW of the older one onto I/B.
Status applyEncoding(std::vector<std::vector<TorchCsvAction>>& rows, std::string_view source,
                     TorchCsvSchedule& out) {
  const TorchCsvAction* firstBW = nullptr;
  const TorchCsvAction* firstI = nullptr;
  std::set<std::pair<int, int>> withB, withW;
  for (const auto& row : rows)
    for (const auto& a : row) {
      if (a.kindName == "BW" && !firstBW) firstBW = &a;
      if (a.kindName == "I" && !firstI) firstI = &a;
      if (a.kindName == "B") withB.insert({a.action.stage, a.action.microbatch});
      if (a.kindName == "W") withW.insert({a.action.stage, a.action.microbatch});
    }
  if (firstBW && firstI)
    return Error{at(source, *firstBW) + ": 'BW' (torch's older full backward) in a file that " +
                 "also uses 'I' (the newer input-gradient, " + at(source, *firstI) +
                 "); a file uses one encoding"};
  bool legacy = firstBW != nullptr;
  if (!legacy && !firstI)
    for (const auto& key : withB)
      if (withW.count(key)) legacy = true;
  if (!legacy) return {};

  out.legacyEncoding = true;
  out.notes.push_back(std::string(source) +
                      ": read in torch's older encoding (B = input-gradient, BW = full backward, "
                      "as torch <= 2.5 wrote); mapped to I and B");
  for (auto& row : rows)
    for (auto& a : row) {
      if (a.kindName == "B") {
        a.kindName = "I";
        a.action.kind = OpKind::I;
      } else if (a.kindName == "BW") {
        a.kindName = "B";
        a.action.kind = OpKind::B;
      }
    }
  return {};
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
      if (trace::isSend(a.action.kind) || trace::isRecv(a.action.kind))
        out.form = TorchCsvForm::ComputeComms;
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

Result<TorchCsvSchedule> parseTorchCsv(std::string_view text, std::string_view sourceName) {
  TorchCsvSchedule out;
  auto rows = splitRows(text);
  // Trailing blank lines are an editor's or a shell's, not ranks; a blank line between rows
  // would silently add an idle rank (and shift every later rank's number), so it is refused.
  const auto isBlank = [](std::string_view row) { return trimCell(row).empty(); };
  while (!rows.empty() && isBlank(rows.back()))
    rows.pop_back();
  for (std::size_t r = 0; r < rows.size(); ++r)
    if (isBlank(rows[r]))
      return Error{std::string(sourceName) + ":" + std::to_string(r + 1) +
                   ": blank line between ranks (rows are ranks: remove it, or write a rank "
                   "with no actions as a comma)"};
  if (rows.empty())
    return Error{std::string(sourceName) + ": empty file (expected one row of actions per rank)"};
  for (std::size_t r = 0; r < rows.size(); ++r) {
    auto& actions = out.rankActions.emplace_back();
    const auto cells = splitCells(rows[r]);
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const auto cell = trimCell(cells[c]);
      if (cell.empty()) continue;  // idle slot
      const CellPosition pos{sourceName, static_cast<int>(r) + 1, static_cast<int>(c) + 1};
      auto parsed = parseTorchCell(cell, pos);
      if (!parsed) return std::move(parsed).takeError();
      for (auto& a : *parsed)
        actions.push_back(std::move(a));
    }
  }
  PS_TRY(applyEncoding(out.rankActions, sourceName, out));
  PS_TRY(buildPlan(out, sourceName));
  return out;
}

Result<TorchCsvSchedule> readTorchCsv(const std::string& path) {
  auto text = trace::readTextFile(path, trace::kMaxScheduleFileBytes, "schedule file");
  if (!text) return std::move(text).takeError();
  return parseTorchCsv(*text, path);
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
