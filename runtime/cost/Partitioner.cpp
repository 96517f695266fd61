#include "runtime/cost/Partitioner.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "runtime/plan/PlanLimits.h"
#include "trace/Units.h"

namespace ps::runtime {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct MinMax {
  double value = kInf;
  std::vector<int> boundaries;
};

// Exact DP: min over cuts of layers [0, L) into S non-empty contiguous stages of
// max over stages of cost(s, first, end). best[s][j] (stages 0..s covering layers [0, j)) =
// min over i of f(i) = max(best[s−1][i], cost(s, i, j)); of the minimisers the largest i is
// taken (the shortest last stage). Only `from` is kept per cell (4 bytes); best needs two rows.
//
// cost only sums non-negative per-layer terms, so it does not increase with i and does not
// decrease with j. When every stage has the same cost function (equal speeds, budgets and
// in-flight counts: `uniformStages`), best[s−1][i] does not decrease with i either (rounding is
// monotone, so exactly), hence f falls while best[s−1][i] < cost(s, i, j) and rises from the
// first i where it is not: that crossing only moves right as j grows, a two-pointer walk, and
// the whole DP is O(S·(L−S+1)). With stage-dependent costs best[s−1] is not monotone (moving a
// cut shifts layers between ranks of different speeds), so each cell scans i downward until
// cost alone reaches the best so far: O(S·L²) at worst, which the caller bounds.
template <typename Cost>
MinMax minMaxPartition(int L, int S, const Cost& cost, bool uniformStages) {
  const int width = L - S + 1;  // stage s ends at j in [s + 1, s + width]
  std::vector<double> prev(static_cast<std::size_t>(L) + 1, kInf), cur(prev.size(), kInf);
  std::vector<std::int32_t> from(static_cast<std::size_t>(S) * static_cast<std::size_t>(width), -1);
  for (int j = 1; j <= width; ++j)
    prev[j] = cost(0, 0, j);
  for (int s = 1; s < S; ++s) {
    std::fill(cur.begin(), cur.end(), kInf);
    std::int32_t* row = from.data() + static_cast<std::size_t>(s) * width;
    int cross = s;  // first i with prev[i] >= cost(s, i, j)
    for (int j = s + 1; j <= s + width; ++j) {
      if (!uniformStages) {
        double b = kInf;
        int arg = -1;
        for (int i = j - 1; i >= s; --i) {
          const double c = cost(s, i, j);
          if (c >= b) break;  // earlier starts only make stage s dearer
          const double v = std::max(prev[i], c);
          if (v < b || arg < 0) {
            b = v;
            arg = i;
          }
        }
        cur[j] = b;
        row[j - s - 1] = arg;
        continue;
      }
      while (cross < j && prev[cross] < cost(s, cross, j))
        ++cross;
      int arg;
      double b;
      if (cross >= j) {  // f falls over the whole range: the last start is best
        arg = j - 1;
        b = cost(s, j - 1, j);
      } else {
        const double rising = prev[cross];  // f(cross) = prev[cross]
        if (cross > s && cost(s, cross - 1, j) < rising) {
          arg = cross - 1;
          b = cost(s, cross - 1, j);
        } else {
          // f = prev on [cross, j): its minimum spans the plateau of prev equal to f(cross).
          arg = static_cast<int>(std::upper_bound(prev.begin() + cross, prev.begin() + j, rising) -
                                 prev.begin()) -
                1;
          b = rising;
        }
      }
      cur[j] = b;
      row[j - s - 1] = arg;
    }
    std::swap(prev, cur);
  }
  MinMax out;
  out.value = prev[L];
  if (std::isinf(out.value) && out.value > 0) return out;
  out.boundaries.assign(S - 1, 0);
  for (int s = S - 1, j = L; s >= 1; --s) {
    j = from[static_cast<std::size_t>(s) * width + (j - s - 1)];
    out.boundaries[s - 1] = j;
  }
  return out;
}

// Prefix sums over layers so a stage's totals cost O(1).
struct Prefix {
  std::vector<double> work, params, acts;
  explicit Prefix(const std::vector<LayerCost>& layers) {
    work.assign(layers.size() + 1, 0);
    params = acts = work;
    for (std::size_t l = 0; l < layers.size(); ++l) {
      const auto& c = layers[l];
      work[l + 1] = work[l] + c.fwdNs + c.inputGradNs + c.weightGradNs;
      params[l + 1] = params[l] + static_cast<double>(c.paramBytes);
      acts[l + 1] = acts[l] + static_cast<double>(c.actBytes);
    }
  }
};

std::string bytes(double b) {
  return trace::formatBytes(static_cast<std::int64_t>(std::llround(b)));
}

// One partitioning problem: the stages' ranks and in-flight counts, checked, and the costs of
// a stage over layers [a, b).
struct PartitionProblem {
  const CostModel& model;
  const PartitionRequest& req;
  int L = 0, S = 0;
  std::vector<int> rankOf, inFlight, stagesOn;
  Prefix pre;
  double state = 0;

  PartitionProblem(const CostModel& m, const PartitionRequest& r)
      : model(m), req(r), pre(m.layers), state(m.stateBytesPerParamByte) {}
  double memory(int s, int a, int b) const {
    return (pre.params[b] - pre.params[a]) * state + (pre.acts[b] - pre.acts[a]) * inFlight[s];
  }
  // A stage's share of its rank's capacity (see the header for ranks with several stages).
  double budget(int s) const {
    const auto cap = model.capacityOf(rankOf[s]);
    if (!req.enforceMemory || !cap) return kInf;
    return static_cast<double>(*cap) / stagesOn[rankOf[s]];
  }
  double time(int s, int a, int b) const {
    if (memory(s, a, b) > budget(s)) return kInf;
    return (pre.work[b] - pre.work[a]) / model.speedOf(rankOf[s]);
  }
  // Stage-independent costs take the linear DP; otherwise the scan, bounded (minMaxPartition).
  bool uniformStages() const {
    bool uniform = true;
    for (int s = 1; s < S; ++s)
      uniform = uniform && model.speedOf(rankOf[s]) == model.speedOf(rankOf[0]) &&
                budget(s) == budget(0) &&
                (inFlight[s] == inFlight[0] || std::isinf(budget(s)));  // unbounded: no weight
    return uniform;
  }
};

// The request's stage maps, defaulted and checked.
Status fillStageMaps(PartitionProblem& p) {
  const int S = p.S;
  p.rankOf = p.req.stageRank;
  if (p.rankOf.empty())
    for (int s = 0; s < S; ++s)
      p.rankOf.push_back(s);
  if (static_cast<int>(p.rankOf.size()) != S)
    return Error{"partition: stage→rank map has " + std::to_string(p.rankOf.size()) +
                 " entries for " + std::to_string(S) + " stages"};
  p.inFlight = p.req.inFlight;
  if (p.inFlight.empty()) p.inFlight.assign(S, 1);
  if (static_cast<int>(p.inFlight.size()) != S)
    return Error{"partition: in-flight list has " + std::to_string(p.inFlight.size()) +
                 " entries for " + std::to_string(S) + " stages"};
  int maxRank = 0;
  for (int s = 0; s < S; ++s) {
    if (p.rankOf[s] < 0) return Error{"partition: stage " + std::to_string(s) + " has no rank"};
    if (p.inFlight[s] < 0)
      return Error{"partition: stage " + std::to_string(s) + " has negative in-flight count"};
    maxRank = std::max(maxRank, p.rankOf[s]);
  }
  p.stagesOn.assign(maxRank + 1, 0);
  for (int r : p.rankOf)
    ++p.stagesOn[r];
  return {};
}

// The table sizes the exact partitioners can afford, and finite totals.
Status checkProblemSize(const PartitionProblem& p, bool uniformStages) {
  const int L = p.L, S = p.S;
  const auto cells = static_cast<double>(S) * static_cast<double>(L - S + 1);
  if (cells > static_cast<double>(kMaxPartitionCells))
    return Error{"partition: " + std::to_string(S) + " stages over " + std::to_string(L) +
                 " layers is too large to balance (" + formatCount(cells) + " table cells, limit " +
                 formatCount(static_cast<double>(kMaxPartitionCells)) + "); give --boundaries"};
  if (!uniformStages && L > kMaxHeterogeneousLayers)
    return Error{"partition: " + std::to_string(L) +
                 " layers on ranks of different speeds or memory " +
                 "budgets: the exact partitioner is quadratic in layers there and is limited to " +
                 std::to_string(kMaxHeterogeneousLayers) + "; give --boundaries"};
  if (!std::isfinite(p.pre.work.back()) || !std::isfinite(p.pre.params.back()) ||
      !std::isfinite(p.pre.acts.back()))
    return Error{"partition: the layers' total time or bytes overflow a double"};
  return {};
}

std::vector<int> stageStarts(const std::vector<int>& boundaries, int L) {
  std::vector<int> starts{0};
  starts.insert(starts.end(), boundaries.begin(), boundaries.end());
  starts.push_back(L);
  return starts;
}

// Nothing fits: the cut that leaves the smallest shortfall, and its worst stage, in words.
Error noCutFits(const PartitionProblem& p, bool uniformStages) {
  auto excess = [&](int s, int a, int b) { return p.memory(s, a, b) - p.budget(s); };
  const MinMax closest = minMaxPartition(p.L, p.S, excess, uniformStages);
  const std::vector<int> starts = stageStarts(closest.boundaries, p.L);
  int worst = 0;
  for (int s = 1; s < p.S; ++s)
    if (excess(s, starts[s], starts[s + 1]) > excess(worst, starts[worst], starts[worst + 1]))
      worst = s;
  const int a = starts[worst], b = starts[worst + 1], r = p.rankOf[worst];
  const double params = (p.pre.params[b] - p.pre.params[a]) * p.state;
  const double acts = (p.pre.acts[b] - p.pre.acts[a]) * p.inFlight[worst];
  std::string share = bytes(p.budget(worst));
  if (p.stagesOn[r] > 1)
    share += " (its share of " + bytes(static_cast<double>(*p.model.capacityOf(r))) + " over " +
             std::to_string(p.stagesOn[r]) + " stages)";
  return Error{"partition: no cut of " + std::to_string(p.L) + " layers into " +
               std::to_string(p.S) + " stages fits in memory; the closest leaves rank " +
               std::to_string(r) + " short by " + bytes(closest.value) + ": stage " +
               std::to_string(worst) + " (layers " + std::to_string(a) + ".." +
               std::to_string(b - 1) + ") needs " + bytes(params + acts) + " = parameters and " +
               "optimizer state " + bytes(params) + " + activations of " +
               std::to_string(p.inFlight[worst]) + " in-flight micro-batches " + bytes(acts) +
               ", but has " + share};
}

// Among cuts whose slowest stage stays within the slack of the fastest possible, the one whose
// largest stage memory is least. Stage memory weighs activations by each stage's own in-flight
// count, so the stages' costs differ: the scan, bounded like heterogeneous ranks.
Status lightestWithinSlack(const PartitionProblem& p, MinMax& best) {
  if (p.L > kMaxHeterogeneousLayers)
    return Error{
        "partition: the memory objective scans quadratically in layers and is limited "
        "to " +
        std::to_string(kMaxHeterogeneousLayers) + " layers (got " + std::to_string(p.L) +
        "); give --boundaries"};
  const double bound = best.value * (1 + p.req.timeSlack) * (1 + 1e-12);  // rounding: ties fit
  auto lightest = [&](int s, int a, int b) {
    return p.time(s, a, b) > bound ? kInf : p.memory(s, a, b);
  };
  const MinMax light = minMaxPartition(p.L, p.S, lightest, false);
  if (!std::isinf(light.value)) best.boundaries = light.boundaries;  // the time cut fits: never
  return {};
}

}  // namespace

Result<Partition> partitionLayers(const CostModel& model, const PartitionRequest& req) {
  PartitionProblem p(model, req);
  p.L = static_cast<int>(model.layers.size());
  p.S = req.numStages;
  const int L = p.L, S = p.S;
  if (S <= 0) return Error{"partition: needs at least one stage (got " + std::to_string(S) + ")"};
  if (L < S)
    return Error{"partition: cannot cut " + std::to_string(L) + " layers into " +
                 std::to_string(S) + " stages (each stage needs at least one layer)"};
  PS_TRY(fillStageMaps(p));
  const bool uniformStages = p.uniformStages();
  PS_TRY(checkProblemSize(p, uniformStages));

  auto time = [&p](int s, int a, int b) { return p.time(s, a, b); };
  MinMax best = minMaxPartition(L, S, time, uniformStages);
  if (std::isinf(best.value)) return noCutFits(p, uniformStages);
  if (req.objective == PartitionObjective::Memory) PS_TRY(lightestWithinSlack(p, best));
  Partition out;
  out.boundaries = best.boundaries;
  const std::vector<int> starts = stageStarts(best.boundaries, L);
  for (int s = 0; s < S; ++s) {
    out.stageNs.push_back((p.pre.work[starts[s + 1]] - p.pre.work[starts[s]]) /
                          model.speedOf(p.rankOf[s]));
    out.maxStageNs = std::max(out.maxStageNs, out.stageNs.back());
    out.stageBytes.push_back(
        static_cast<std::int64_t>(std::llround(p.memory(s, starts[s], starts[s + 1]))));
  }
  return out;
}

Result<std::vector<int>> parseBoundaries(const std::string& text, int numLayers, int numStages) {
  const std::string flag = "--boundaries '" + text + "': ";
  std::vector<int> out;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ')
      item.erase(item.begin());
    while (!item.empty() && item.back() == ' ')
      item.pop_back();
    int v = 0;
    const auto res = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || res.ec != std::errc{} || res.ptr != item.data() + item.size())
      return Error{flag + "'" + item + "' is not a layer number"};
    out.push_back(v);
    start = comma + 1;
  }
  const auto want = static_cast<std::size_t>(std::max(numStages - 1, 0));
  if (out.size() != want)
    return Error{flag + "expected " + std::to_string(want) +
                 " values (the first layer of stages 1.." + std::to_string(numStages - 1) +
                 ") for " + std::to_string(numStages) + " stages, got " +
                 std::to_string(out.size())};
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] < 1 || out[i] > numLayers - 1)
      return Error{flag + std::to_string(out[i]) + " is outside 1.." +
                   std::to_string(numLayers - 1) + " (stage 0 starts at layer 0; the model has " +
                   std::to_string(numLayers) + " layers)"};
    if (i > 0 && out[i] <= out[i - 1])
      return Error{flag + "must be strictly increasing (" + std::to_string(out[i - 1]) + " then " +
                   std::to_string(out[i]) + ")"};
  }
  return out;
}

std::vector<int> evenBoundaries(int numLayers, int numStages) {
  std::vector<int> out;
  if (numStages <= 0) return out;
  const int base = numLayers / numStages, extra = numLayers % numStages;
  int first = 0;
  for (int s = 0; s + 1 < numStages; ++s) {
    first += base + (s < extra ? 1 : 0);
    out.push_back(first);
  }
  return out;
}

Status assignLayers(Plan& plan, const std::vector<int>& boundaries, int numLayers) {
  const int S = plan.numStages;
  if (static_cast<int>(boundaries.size()) != S - 1)
    return Error{"assignLayers: " + std::to_string(boundaries.size()) + " boundaries for " +
                 std::to_string(S) + " stages (expected " + std::to_string(S - 1) + ")"};
  std::vector<int> starts{0};
  starts.insert(starts.end(), boundaries.begin(), boundaries.end());
  starts.push_back(numLayers);
  for (int s = 0; s < S; ++s)
    if (starts[s + 1] <= starts[s])
      return Error{"assignLayers: stage " + std::to_string(s) + " would have no layers (" +
                   std::to_string(numLayers) + " layers, boundaries must increase within 1.." +
                   std::to_string(numLayers - 1) + ")"};
  for (auto& replica : plan.placement)
    for (int s = 0; s < S && s < static_cast<int>(replica.size()); ++s) {
      replica[s].firstLayer = starts[s];
      replica[s].lastLayer = starts[s + 1] - 1;
    }
  plan.numLayers = numLayers;
  return {};
}

}  // namespace ps::runtime
