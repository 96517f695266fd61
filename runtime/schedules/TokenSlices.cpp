#include "runtime/schedules/TokenSlices.h"

#include "runtime/schedules/CommaList.h"
#include "runtime/schedules/LatencyPartition.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace ps::runtime {

double sliceScale(const TokenSlicing& s, int prefix, int len) {
  const double T = s.tokens, l = len, p = prefix;
  return (1 - s.attentionShare) * l / T + s.attentionShare * l * (p + l / 2) / (T * T / 2);
}

std::vector<int> bestSliceLengths(const TokenSlicing& s, int stages, int sequences) {
  const int cells = std::min(64, s.tokens);
  // Cell c covers tokens [edge(c), edge(c+1)).
  const auto edge = [&](int c) {
    return static_cast<int>(static_cast<long long>(c) * s.tokens / cells);
  };
  const auto cost = [&](int a, int b) -> std::optional<double> {
    return sliceScale(s, edge(a), edge(b) - edge(a)) + s.overhead;
  };
  const std::vector<int> bestCuts = bestLatencyCuts(cells, cost, sequences, stages);
  std::vector<int> lengths;
  int start = 0;
  for (int cut : bestCuts) {
    lengths.push_back(edge(cut) - start);
    start = edge(cut);
  }
  return lengths;
}

Result<std::vector<int>> parseTokenSlices(const std::string& text, const TokenSlicing& s,
                                          int stages, int sequences) {
  const std::string flag = "--token-slices " + text + ": ";
  if (!(s.tokens >= 1 && s.tokens <= (1 << 24)))
    return Error{"--seq-tokens " + std::to_string(s.tokens) + ": expected 1..16777216 tokens"};
  if (!(s.attentionShare >= 0 && s.attentionShare <= 1))
    return Error{
        "--attention-share: expected 0..1 (the share of a layer's time that is "
        "attention over the whole sequence)"};
  if (!(s.overhead >= 0 && s.overhead <= 100))
    return Error{
        "--microbatch-overhead: expected 0..100 (a slice's fixed cost, as a fraction of "
        "the whole sequence's)"};
  if (text == "auto") return bestSliceLengths(s, stages, sequences);
  std::vector<int> lengths;
  auto items = splitCommaList(text, "--token-slices");  // "512,,512" refused, not 2 slices
  if (!items) return std::move(items).takeError();
  for (const std::string& item : *items) {
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v <= 0 || v > s.tokens)
      return Error{flag + "expected K, auto or token counts like 512,512,1024 (\"" + item + "\")"};
    lengths.push_back(static_cast<int>(v));
  }
  if (lengths.size() == 1) {  // K equal slices
    const int k = lengths[0];
    if (k > s.tokens)
      return Error{flag + "more slices than the " + std::to_string(s.tokens) + " tokens"};
    lengths.assign(static_cast<std::size_t>(k), s.tokens / k);
    for (int i = 0; i < s.tokens % k; ++i)
      ++lengths[static_cast<std::size_t>(i)];
    return lengths;
  }
  long long total = 0;
  for (int l : lengths)
    total += l;
  if (total != s.tokens)
    return Error{flag + "the lengths add up to " + std::to_string(total) + ", not the sequence's " +
                 std::to_string(s.tokens) + " tokens (--seq-tokens)"};
  return lengths;
}

Status sliceTokens(Plan& plan, const std::vector<int>& lengths, const TokenSlicing& s) {
  const int K = static_cast<int>(lengths.size());
  if (K == 0 || plan.numMicrobatches() % K != 0)
    return Error{"--token-slices: the plan's micro-batches are not sequences × slices"};
  for (int j = 0; j < plan.numMicrobatches(); ++j) {
    const int k = j % K;
    int prefix = 0;
    for (int i = 0; i < k; ++i)
      prefix += lengths[static_cast<std::size_t>(i)];
    MicrobatchSpec& mb = plan.microbatches[static_cast<std::size_t>(j)];
    mb.costScale = sliceScale(s, prefix, lengths[static_cast<std::size_t>(k)]) + s.overhead;
    mb.sliceOf = k > 0 ? j - 1 : -1;
    // Attention's backward flows from later tokens to earlier ones.
    if (k > 0)
      for (int st = 0; st < plan.numStages; ++st)
        plan.extraEdges.push_back({{OpKind::B, st, j, 0}, {OpKind::B, st, j - 1, 0}});
  }
  return {};
}

}  // namespace ps::runtime
