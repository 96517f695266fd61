#include "trace/import/torchcsv/TorchCsvCell.h"

#include <array>
#include <cctype>
#include <string>

namespace ps::trace::import {
namespace {

struct KindSpec {
  std::string_view name;
  OpKind kind;
  bool needsMicrobatch;
};

// torch's spellings. UNSHARD/RESHARD/REDUCE_GRAD (FSDP) have no micro-batch and no OpKind; they
// are kept as OTHER with their name. BW is the older full backward (see TorchCsvRows.h).
constexpr std::array<KindSpec, 12> kKinds = {{
    {"F", OpKind::F, true},
    {"B", OpKind::B, true},
    {"I", OpKind::I, true},
    {"W", OpKind::W, true},
    {"BW", OpKind::B, true},
    {"SEND_F", OpKind::SEND_F, true},
    {"RECV_F", OpKind::RECV_F, true},
    {"SEND_B", OpKind::SEND_B, true},
    {"RECV_B", OpKind::RECV_B, true},
    {"UNSHARD", OpKind::OTHER, false},
    {"RESHARD", OpKind::OTHER, false},
    {"REDUCE_GRAD", OpKind::OTHER, false},
}};

constexpr std::string_view kOverlapSuffix = "OVERLAP_F_B";
constexpr std::size_t kMaxDigits = 9;  // keeps numbers inside int

std::string expectedKinds() {
  std::string out;
  for (const auto& k : kKinds)
    out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

std::string prefix(const TorchCellPosition& pos, std::string_view cell) {
  return std::string(pos.source) + ":" + std::to_string(pos.line) + ": cell " +
         std::to_string(pos.cell) + " '" + std::string(cell) + "': ";
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isKindChar(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

// Reads a run of digits at `i`; -1 when there is none. Sets `tooLong` past kMaxDigits.
int readNumber(std::string_view s, std::size_t& i, bool& tooLong) {
  const std::size_t start = i;
  while (i < s.size() && isDigit(s[i]))
    ++i;
  if (i == start) return -1;
  if (i - start > kMaxDigits) {
    tooLong = true;
    return -1;
  }
  return std::stoi(std::string(s.substr(start, i - start)));
}

// One `{stage}{KIND}{mb}` action; `cell` is the whole cell for messages.
Result<TorchCsvCellAction> parseAction(std::string_view text, std::string_view cell,
                                       const TorchCellPosition& pos) {
  const std::string where = prefix(pos, cell);
  std::size_t i = 0;
  bool tooLong = false;
  const int stage = readNumber(text, i, tooLong);
  if (tooLong) return Error{where + "stage number too large"};
  if (stage < 0) return Error{where + "expected a stage number first (like 2F0)"};
  const std::size_t kindStart = i;
  while (i < text.size() && isKindChar(text[i]))
    ++i;
  const std::string_view kindName = text.substr(kindStart, i - kindStart);
  if (kindName.empty())
    return Error{where + "expected an action kind after the stage number (" + expectedKinds() +
                 ")"};
  const KindSpec* spec = nullptr;
  for (const auto& k : kKinds)
    if (k.name == kindName) spec = &k;
  if (!spec)
    return Error{where + "unknown action kind '" + std::string(kindName) + "' (expected " +
                 expectedKinds() + ")"};
  const int mb = readNumber(text, i, tooLong);
  if (tooLong) return Error{where + "micro-batch number too large"};
  if (mb < 0 && spec->needsMicrobatch)
    return Error{where + "expected a micro-batch number after '" + std::string(text.substr(0, i)) +
                 "'"};
  if (i < text.size())
    return Error{where + "unexpected '" + std::string(text.substr(i)) + "' after '" +
                 std::string(text.substr(0, i)) + "'"};

  TorchCsvCellAction a;
  a.kind = spec->kind;
  a.stage = stage;
  a.microbatch = mb;
  a.kindName = std::string(spec->name);
  a.line = pos.line;
  a.cell = pos.cell;
  return a;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// "(0F7;7B3)OVERLAP_F_B": the two actions inside run overlapped as one unit.
Result<std::vector<TorchCsvCellAction>> parseOverlap(std::string_view cell,
                                                     const TorchCellPosition& pos) {
  const std::string where = prefix(pos, cell);
  const std::size_t close = cell.find(')');
  if (close == std::string_view::npos)
    return Error{where + "expected ')' closing the overlapped actions"};
  if (cell.substr(close + 1) != kOverlapSuffix)
    return Error{where + "expected '" + std::string(kOverlapSuffix) + "' after ')'"};
  std::vector<TorchCsvCellAction> out;
  std::string_view inner = cell.substr(1, close - 1);
  while (true) {
    const std::size_t semi = inner.find(';');
    const auto part = trim(inner.substr(0, semi));
    if (part.empty()) return Error{where + "empty action inside the overlap"};
    auto a = parseAction(part, cell, pos);
    if (!a) return std::move(a).takeError();
    const OpKind k = a->kind;
    if (k != OpKind::F && k != OpKind::B && k != OpKind::I && k != OpKind::W)
      return Error{where + "only compute actions (F, B, I, W) can overlap, not '" +
                   std::string(part) + "'"};
    out.push_back(std::move(*a));
    if (semi == std::string_view::npos) break;
    inner.remove_prefix(semi + 1);
  }
  // torch's DualPipeV pairs one forward with one backward; the validator and simulator run
  // overlap units of two.
  if (out.size() != 2)
    return Error{where + "an overlap holds two actions, like (0F7;7B3), not " +
                 std::to_string(out.size())};
  out[0].overlapNext = true;
  return out;
}

}  // namespace

Result<std::vector<TorchCsvCellAction>> parseTorchCell(std::string_view cell,
                                                       const TorchCellPosition& pos) {
  if (cell.front() == '(') return parseOverlap(cell, pos);
  auto a = parseAction(cell, cell, pos);
  if (!a) return std::move(a).takeError();
  return std::vector<TorchCsvCellAction>{std::move(*a)};
}

}  // namespace ps::trace::import
