#include "trace/import/torchcsv/TorchCsvRows.h"

#include <set>
#include <utility>

#include "trace/FileText.h"
#include "trace/import/torchcsv/TorchCsvCell.h"

namespace ps::trace::import {
namespace {

// Splits text into rows as Python's csv module does for torch's files: "\n", "\r\n" or "\r"
// end a row; only the final terminator is dropped. Blank rows (nothing but spaces: not even a
// comma, which would mark idle slots) are the caller's to judge (parseTorchCsvRows).
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

std::string at(std::string_view source, const TorchCsvCellAction& a) {
  return std::string(source) + ":" + std::to_string(a.line) + ": cell " + std::to_string(a.cell);
}

// Decides the encoding (see the header) and maps B/BW of the older one onto I/B.
Status applyEncoding(TorchCsvRows& out, std::string_view source) {
  const TorchCsvCellAction* firstBW = nullptr;
  const TorchCsvCellAction* firstI = nullptr;
  std::set<std::pair<int, int>> withB, withW;
  for (const auto& row : out.ranks)
    for (const auto& a : row) {
      if (a.kindName == "BW" && !firstBW) firstBW = &a;
      if (a.kindName == "I" && !firstI) firstI = &a;
      if (a.kindName == "B") withB.insert({a.stage, a.microbatch});
      if (a.kindName == "W") withW.insert({a.stage, a.microbatch});
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
  for (auto& row : out.ranks)
    for (auto& a : row) {
      if (a.kindName == "B") {
        a.kindName = "I";
        a.kind = OpKind::I;
      } else if (a.kindName == "BW") {
        a.kindName = "B";
        a.kind = OpKind::B;
      }
    }
  return {};
}

TorchCsvForm formOf(const TorchCsvRows& rows) {
  for (const auto& row : rows.ranks)
    for (const auto& a : row)
      if (isSend(a.kind) || isRecv(a.kind)) return TorchCsvForm::ComputeComms;
  return TorchCsvForm::ComputeOnly;
}

}  // namespace

Result<TorchCsvRows> parseTorchCsvRows(std::string_view text, std::string_view sourceName) {
  TorchCsvRows out;
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
    auto& actions = out.ranks.emplace_back();
    const auto cells = splitCells(rows[r]);
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const auto cell = trimCell(cells[c]);
      if (cell.empty()) continue;  // idle slot
      const TorchCellPosition pos{sourceName, static_cast<int>(r) + 1, static_cast<int>(c) + 1};
      auto parsed = parseTorchCell(cell, pos);
      if (!parsed) return std::move(parsed).takeError();
      for (auto& a : *parsed)
        actions.push_back(std::move(a));
    }
  }
  PS_TRY(applyEncoding(out, sourceName));
  out.form = formOf(out);
  return out;
}

Result<TorchCsvRows> readTorchCsvRows(const std::string& path) {
  auto text = readTextFile(path, kMaxScheduleFileBytes, "schedule file");
  if (!text) return std::move(text).takeError();
  return parseTorchCsvRows(*text, path);
}

}  // namespace ps::trace::import
