#include "trace/RunTrace.h"

#include <limits>
#include <numeric>

namespace ps::trace {

void OpColumns::reserve(std::size_t n) {
  start.reserve(n);
  end.reserve(n);
  bytes.reserve(n);
  stage.reserve(n);
  microbatch.reserve(n);
  step.reserve(n);
  peer.reserve(n);
  name.reserve(n);
  kind.reserve(n);
}

void OpColumns::push(std::int64_t s, std::int64_t e, OpKind k, std::int32_t stg, std::int32_t mb,
                     std::int32_t st, std::int32_t pr, std::int64_t b, std::int32_t nm) {
  start.push_back(s);
  end.push_back(e);
  kind.push_back(k);
  stage.push_back(stg);
  microbatch.push_back(mb);
  step.push_back(st);
  peer.push_back(pr);
  bytes.push_back(b);
  name.push_back(nm);
}

namespace {
template <typename T>
void permute(std::vector<T>& v, const std::vector<std::size_t>& order) {
  std::vector<T> out;
  out.reserve(v.size());
  for (std::size_t i : order)
    out.push_back(v[i]);
  v.swap(out);
}
}  // namespace

bool OpColumns::sortByStart() {
  if (std::is_sorted(start.begin(), start.end())) return false;
  std::vector<std::size_t> order(size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [this](std::size_t a, std::size_t b) { return start[a] < start[b]; });
  permute(start, order);
  permute(end, order);
  permute(bytes, order);
  permute(stage, order);
  permute(microbatch, order);
  permute(step, order);
  permute(peer, order);
  permute(name, order);
  permute(kind, order);
  return true;
}

void MemorySeries::sortByTime() {
  if (std::is_sorted(t.begin(), t.end())) return;
  std::vector<std::size_t> order(t.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [this](std::size_t a, std::size_t b) { return t[a] < t[b]; });
  permute(t, order);
  permute(bytes, order);
}

std::size_t RankTrace::opCount() const {
  std::size_t n = 0;
  for (const auto& l : lanes)
    n += l.size();
  return n;
}

std::size_t RunTrace::opCount() const {
  std::size_t n = 0;
  for (const auto& r : ranks)
    n += r.opCount();
  return n;
}

std::pair<std::int64_t, std::int64_t> RunTrace::timeExtent() const {
  std::int64_t lo = std::numeric_limits<std::int64_t>::max();
  std::int64_t hi = std::numeric_limits<std::int64_t>::min();
  for (const auto& r : ranks) {
    for (const auto& l : r.lanes) {
      if (l.empty()) continue;
      lo = std::min(lo, l.start.front());
      for (std::int64_t e : l.end)
        hi = std::max(hi, e);
    }
    if (r.memory.size()) {
      lo = std::min(lo, r.memory.t.front());
      hi = std::max(hi, r.memory.t.back());
    }
  }
  if (lo > hi) return {0, 0};
  return {lo, hi};
}

}  // namespace ps::trace
