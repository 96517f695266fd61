#include "runtime/fit/CostFit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

namespace ps::runtime::fit {
namespace {

using trace::OpKind;

double quantile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(std::lround(q * static_cast<double>(v.size() - 1)));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

bool inFitSteps(const RecordedProgram& p, int step) {
  return std::binary_search(p.fitSteps.begin(), p.fitSteps.end(), step);
}

struct Transfer {
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int64_t bytes = -1;
};

// Per (sender, receiver, direction) the transfers in start order, sends and receives apart.
using TransferKey = std::tuple<int, int, bool>;
void collectTransfers(const trace::RunTrace& run, const RecordedProgram& p,
                      std::map<TransferKey, std::vector<Transfer>>& sends,
                      std::map<TransferKey, std::vector<Transfer>>& recvs) {
  for (std::size_t r = 0; r < run.ranks.size(); ++r)
    for (trace::Lane laneId : {trace::Lane::Send, trace::Lane::Recv}) {
      const trace::OpColumns& lane = run.ranks[r].lane(laneId);
      for (std::size_t i = 0; i < lane.size(); ++i) {
        if (lane.peer[i] < 0 || !inFitSteps(p, lane.step[i])) continue;
        const OpKind k = lane.kind[i];
        const bool forward = k == OpKind::SEND_F || k == OpKind::RECV_F;
        const int self = static_cast<int>(r);
        const Transfer t{lane.start[i], lane.end[i], lane.bytes[i]};
        if (trace::isSend(k)) sends[{self, lane.peer[i], forward}].push_back(t);
        if (trace::isRecv(k)) recvs[{lane.peer[i], self, forward}].push_back(t);
      }
    }
}

LinkFit fitLink(const trace::RunTrace& run, const RecordedProgram& p) {
  std::map<TransferKey, std::vector<Transfer>> sends, recvs;
  collectTransfers(run, p, sends, recvs);
  std::vector<double> bytes, ns;
  for (const auto& [key, list] : sends) {
    const auto it = recvs.find(key);
    if (it == recvs.end()) continue;
    for (std::size_t k = 0; k < std::min(list.size(), it->second.size()); ++k) {
      const Transfer& s = list[k];
      const Transfer& r = it->second[k];
      // From when both sides were there to the data's arrival: a receive posted early waits for
      // the send (not the link's time); one posted late finds the data on its way.
      const std::int64_t d = r.end - std::max(s.start, r.start);
      const std::int64_t b = s.bytes >= 0 ? s.bytes : r.bytes;
      if (d < 0 || b < 0) continue;
      bytes.push_back(static_cast<double>(b));
      ns.push_back(static_cast<double>(d));
    }
  }
  LinkFit f;
  f.samples = ns.size();
  if (ns.empty()) {
    f.how = "no matched send/receive pairs: links free (transfers take no time)";
    return f;
  }
  f.sizes = std::set<double>(bytes.begin(), bytes.end()).size();
  std::vector<double> sorted = bytes;
  f.medianBytes = quantile(sorted, 0.5);
  const std::string from = " from " + std::to_string(f.samples) + " transfers";
  if (f.sizes >= 2) {
    const LineFit line = fitLine(bytes, ns);
    if (line.slope > 0 && line.intercept >= 0) {
      f.bytesPerNs = 1.0 / line.slope;
      f.latencyNs = line.intercept;
      f.how = "least squares over " + std::to_string(f.sizes) + " sizes" + from;
      return f;
    }
    f.latencyNs =
        std::max(0.0, std::accumulate(ns.begin(), ns.end(), 0.0) / static_cast<double>(ns.size()));
    f.how = "time does not grow with size" + from + ": all latency";
    return f;
  }
  // One size: the fastest transfer is taken as the latency, the typical one's excess over it as
  // the bytes' time.
  std::vector<double> d = ns;
  const double fastest = *std::min_element(d.begin(), d.end());
  const double typical = quantile(d, 0.5);
  f.latencyNs = fastest;
  if (typical > fastest && f.medianBytes > 0) f.bytesPerNs = f.medianBytes / (typical - fastest);
  f.how = "one size (" + std::to_string(static_cast<std::int64_t>(f.medianBytes)) + " B)" + from +
          ": latency from the fastest, bandwidth from the median";
  return f;
}

// SEND_F of stage s and SEND_B of stage s + 1 both carry boundary s (activations out, gradients
// back in); the forward's count is preferred.
std::vector<double> boundaryBytesOf(const trace::RunTrace& run, const RecordedProgram& p) {
  std::vector<std::vector<double>> forward(static_cast<std::size_t>(p.stages)),
      backward(static_cast<std::size_t>(p.stages));
  for (const trace::RankTrace& rank : run.ranks) {
    const trace::OpColumns& lane = rank.lane(trace::Lane::Send);
    for (std::size_t i = 0; i < lane.size(); ++i) {
      if (lane.bytes[i] < 0 || !inFitSteps(p, lane.step[i])) continue;
      const bool fwd = lane.kind[i] == OpKind::SEND_F;
      const int boundary = fwd ? lane.stage[i] : lane.stage[i] - 1;
      if (boundary < 0 || boundary >= p.stages) continue;
      (fwd ? forward : backward)[static_cast<std::size_t>(boundary)].push_back(
          static_cast<double>(lane.bytes[i]));
    }
  }
  std::vector<double> out(static_cast<std::size_t>(p.stages), -1.0);
  for (std::size_t s = 0; s < out.size(); ++s) {
    auto& v = !forward[s].empty() ? forward[s] : backward[s];
    if (!v.empty()) out[s] = quantile(v, 0.5);
  }
  return out;
}

}  // namespace

LineFit fitLine(const std::vector<double>& x, const std::vector<double>& y) {
  const auto n = static_cast<double>(std::min(x.size(), y.size()));
  if (n == 0) return {};
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  if (sxx <= 0) return {my, 0};
  const double slope = sxy / sxx;
  return {my - slope * mx, slope};
}

const KindCost* CostFit::find(int stage, OpKind kind) const {
  for (const KindCost& k : kinds)
    if (k.stage == stage && k.kind == kind) return &k;
  return nullptr;
}

CostFit fitCosts(const trace::RunTrace& run, const RecordedProgram& p) {
  CostFit fit;
  std::map<std::pair<int, OpKind>, std::vector<double>> durations;
  fit.optimizerNs.assign(static_cast<std::size_t>(p.ranks), 0.0);
  for (int r = 0; r < p.ranks && r < static_cast<int>(run.ranks.size()); ++r) {
    const trace::OpColumns& lane =
        run.ranks[static_cast<std::size_t>(r)].lane(trace::Lane::Compute);
    double optSum = 0;
    std::size_t optCount = 0;
    for (std::size_t i = 0; i < lane.size(); ++i) {
      if (!inFitSteps(p, lane.step[i])) continue;
      const auto d = static_cast<double>(lane.duration(i));
      if (lane.kind[i] == OpKind::OPT) {
        optSum += d;
        ++optCount;
      }
      if (lane.stage[i] < 0) continue;
      durations[{lane.stage[i], lane.kind[i]}].push_back(d);
    }
    if (optCount > 0)
      fit.optimizerNs[static_cast<std::size_t>(r)] = optSum / static_cast<double>(optCount);
  }
  for (auto& [key, v] : durations) {
    KindCost k;
    k.stage = key.first;
    k.kind = key.second;
    k.count = v.size();
    k.meanNs = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    k.medianNs = quantile(v, 0.5);
    k.p10Ns = quantile(v, 0.1);
    k.p90Ns = quantile(v, 0.9);
    fit.kinds.push_back(k);
  }
  fit.link = fitLink(run, p);
  fit.link.boundaryBytes = boundaryBytesOf(run, p);
  return fit;
}

}  // namespace ps::runtime::fit
