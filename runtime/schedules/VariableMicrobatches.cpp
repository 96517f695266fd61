#include "runtime/schedules/VariableMicrobatches.h"

#include "runtime/schedules/CommaList.h"
#include "runtime/schedules/LatencyPartition.h"
#include "trace/FileText.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

namespace ps::runtime {
namespace {

// Bounds that keep the DP under a second on hostile input: its candidates are sequences × group
// sizes, each tried against kMaxCaps caps.
constexpr std::size_t kMaxSequences = 1024;
constexpr int kMaxGroup = 512;
// The DP tries this many caps on the longest micro-batch, spread over the candidates.
constexpr std::size_t kMaxCaps = 128;

Status checkBatching(const SequenceBatching& b) {
  if (!(b.attentionShare >= 0 && b.attentionShare <= 1))
    return Error{
        "--attention-share: expected 0..1 (the share of a layer's time that is "
        "attention over a whole sequence)"};
  if (!(b.overhead >= 0 && b.overhead <= 100))
    return Error{
        "--microbatch-overhead: expected 0..100 (a micro-batch's fixed cost, as a "
        "fraction of one --seq-tokens sequence's)"};
  if (b.budgetTokens < b.rowTokens || b.budgetTokens > (1LL << 32))
    return Error{"--microbatch-tokens " + std::to_string(b.budgetTokens) +
                 ": expected at least one --seq-tokens sequence (" + std::to_string(b.rowTokens) +
                 ") and at most 4294967296"};
  return {};
}

}  // namespace

double paddedGroupScale(const SequenceBatching& b, int n, int maxLen) {
  const double T = b.rowTokens, L = maxLen;
  return n * L / T * ((1 - b.attentionShare) + b.attentionShare * L / T) + b.overhead;
}

Result<std::vector<int>> parseSequenceLengths(const std::string& text, int rowTokens) {
  std::string where = "--seq-lengths " + text;
  std::string body = text;
  if (!text.empty() && text[0] == '@') {
    auto file = trace::readTextFile(text.substr(1), trace::kMaxFlagFileBytes, "lengths file");
    if (!file) return Error{"--seq-lengths: cannot read " + file.error()};
    body = std::move(*file);
    where = text.substr(1);
  }
  // An empty item between commas ("512,,96", a trailing comma) is refused, not dropped (issue
  // 30, item 19). A file's lines may end in a comma (its items run on over the line break).
  if (!text.empty() && text[0] != '@') {
    auto items = splitCommaList(text, "--seq-lengths");
    if (!items) return std::move(items).takeError();
  } else {
    for (std::size_t c = body.find(','); c != std::string::npos; c = body.find(',', c + 1)) {
      const std::size_t next = body.find_first_not_of(" \t\r\n", c + 1);
      if (next != std::string::npos && body[next] == ',')
        return Error{where + ": an empty item between two commas (give a length between them)"};
    }
  }
  std::replace_if(
      body.begin(), body.end(),
      [](char c) { return c == ',' || c == '\n' || c == '\r' || c == '\t'; }, ' ');
  std::vector<int> lengths;
  std::stringstream in(body);
  std::string item;
  while (in >> item) {
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (*end != '\0' || v <= 0 || v > rowTokens)
      return Error{where + ": \"" + item + "\" is not a sequence length in 1.." +
                   std::to_string(rowTokens) + " tokens (--seq-tokens)"};
    if (lengths.size() == kMaxSequences)
      return Error{where + ": more than " + std::to_string(kMaxSequences) + " sequences"};
    lengths.push_back(static_cast<int>(v));
  }
  if (lengths.empty()) return Error{where + ": no sequence lengths (expected e.g. 512,96,2048)"};
  return lengths;
}

Result<Microbatching> packedMicrobatches(const std::vector<int>& lengths,
                                         const SequenceBatching& b) {
  PS_TRY(checkBatching(b));
  std::vector<int> room;                  // per row, tokens left
  std::vector<std::vector<int>> rowSeqs;  // per row, its sequences
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    std::size_t r = 0;
    while (r < room.size() && room[r] < lengths[i])
      ++r;
    if (r == room.size()) {
      room.push_back(b.rowTokens);
      rowSeqs.emplace_back();
    }
    room[r] -= lengths[i];
    rowSeqs[r].push_back(static_cast<int>(i));
  }
  const auto rowsPer = static_cast<std::size_t>(b.budgetTokens / b.rowTokens);
  Microbatching out;
  for (std::size_t first = 0; first < rowSeqs.size(); first += rowsPer) {
    const std::size_t rows = std::min(rowsPer, rowSeqs.size() - first);
    std::vector<int> group;
    for (std::size_t r = first; r < first + rows; ++r)
      group.insert(group.end(), rowSeqs[r].begin(), rowSeqs[r].end());
    out.rows.emplace_back(rowSeqs.begin() + static_cast<std::ptrdiff_t>(first),
                          rowSeqs.begin() + static_cast<std::ptrdiff_t>(first + rows));
    // A packed row costs a whole sequence (its attention spans the row).
    out.scales.push_back(static_cast<double>(rows) + b.overhead);
    out.groups.push_back(std::move(group));
    out.paddedTokens += static_cast<long long>(rows) * b.rowTokens;
  }
  return out;
}

Result<Microbatching> dpMicrobatches(const std::vector<int>& lengths, const SequenceBatching& b,
                                     int stages) {
  PS_TRY(checkBatching(b));
  std::vector<int> order(lengths.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return lengths[x] < lengths[y]; });
  const auto N = static_cast<int>(order.size());
  const auto len = [&](int k) { return lengths[static_cast<std::size_t>(order[k])]; };
  // Group [i, j] of the sorted sequences: j - i + 1 of them padded to len(j).
  const auto fits = [&](int i, int j) {
    return j - i + 1 <= kMaxGroup && static_cast<long long>(j - i + 1) * len(j) <= b.budgetTokens;
  };
  // Part [a, b) of the sorted sequences: b - a of them padded to len(b - 1).
  const auto cost = [&](int a, int c) -> std::optional<double> {
    if (!fits(a, c - 1)) return std::nullopt;
    return paddedGroupScale(b, c - a, len(c - 1));
  };
  const std::vector<int> ends = bestLatencyCuts(N, cost, 1.0, stages, kMaxCaps);
  if (ends.empty())
    return Error{"--microbatching dp: no grouping fits --microbatch-tokens " +
                 std::to_string(b.budgetTokens)};
  std::vector<std::pair<int, int>> cuts;  // [i, j] groups, last first
  for (std::size_t k = ends.size(); k-- > 0;)
    cuts.emplace_back(k == 0 ? 0 : ends[k - 1], ends[k] - 1);
  Microbatching out;
  for (auto it = cuts.rbegin(); it != cuts.rend(); ++it) {
    std::vector<int> group;
    for (int k = it->first; k <= it->second; ++k)
      group.push_back(order[static_cast<std::size_t>(k)]);
    out.scales.push_back(paddedGroupScale(b, it->second - it->first + 1, len(it->second)));
    out.paddedTokens += static_cast<long long>(group.size()) * len(it->second);
    auto& rows = out.rows.emplace_back();
    for (int sequence : group)
      rows.push_back({sequence});
    out.groups.push_back(std::move(group));
  }
  orderForPipeline(out);
  return out;
}

void orderForPipeline(Microbatching& mb) {
  std::vector<std::size_t> bySize(mb.scales.size());
  std::iota(bySize.begin(), bySize.end(), std::size_t{0});
  std::stable_sort(bySize.begin(), bySize.end(),
                   [&](std::size_t x, std::size_t y) { return mb.scales[x] < mb.scales[y]; });
  std::vector<std::size_t> front, back;
  for (std::size_t k = 0; k < bySize.size(); ++k)
    (k % 2 == 0 ? front : back).push_back(bySize[k]);
  front.insert(front.end(), back.rbegin(), back.rend());
  Microbatching out;
  out.paddedTokens = mb.paddedTokens;
  for (std::size_t i : front) {
    out.scales.push_back(mb.scales[i]);
    out.groups.push_back(std::move(mb.groups[i]));
    if (i < mb.rows.size()) out.rows.push_back(std::move(mb.rows[i]));
  }
  mb = std::move(out);
}

double pipelineLatency(const std::vector<double>& scales, int stages) {
  double sum = 0, longest = 0;
  for (double s : scales) {
    sum += s;
    longest = std::max(longest, s);
  }
  return sum + (stages - 1) * longest;
}

Status applyMicrobatchScales(Plan& plan, const std::vector<double>& scales) {
  if (plan.numMicrobatches() != static_cast<int>(scales.size()))
    return Error{"--seq-lengths: the plan has " + std::to_string(plan.numMicrobatches()) +
                 " micro-batches for " + std::to_string(scales.size()) + " groups of sequences"};
  for (std::size_t m = 0; m < scales.size(); ++m)
    plan.microbatches[m].costScale = scales[m];
  return {};
}

}  // namespace ps::runtime
