#include "ui/timeline/DepthRows.h"

#include <algorithm>

namespace ps::ui {

using trace::Lane;

namespace {

// Whether any two ops of the two lanes (each sorted by start) overlap: one merged pass.
bool anyOverlap(const trace::OpColumns& a, const trace::OpColumns& b) {
  std::size_t i = 0, j = 0;
  std::int64_t latestEnd = INT64_MIN;
  while (i < a.size() || j < b.size()) {
    const bool fromA = j >= b.size() || (i < a.size() && a.start[i] <= b.start[j]);
    const std::int64_t s = fromA ? a.start[i] : b.start[j];
    const std::int64_t e = fromA ? a.end[i++] : b.end[j++];
    if (s < latestEnd) return true;
    latestEnd = std::max(latestEnd, e);
  }
  return false;
}

int slot(Lane lane) {
  return lane == Lane::Other ? 1 : 0;
}

}  // namespace

DepthRows::DepthRows(const trace::RankTrace& rank, int maxRows) {
  const auto& compute = rank.lane(Lane::Compute);
  const auto& other = rank.lane(Lane::Other);
  if (!anyOverlap(compute, other)) return;
  // Enclosing ranges first: by start, then the longer one, then compute before other.
  std::vector<OpRef> order;
  order.reserve(compute.size() + other.size());
  for (std::size_t i = 0; i < compute.size(); ++i)
    order.push_back({Lane::Compute, static_cast<std::uint32_t>(i)});
  for (std::size_t i = 0; i < other.size(); ++i)
    order.push_back({Lane::Other, static_cast<std::uint32_t>(i)});
  auto col = [&](const OpRef& r) -> const trace::OpColumns& { return rank.lane(r.lane); };
  std::stable_sort(order.begin(), order.end(), [&](const OpRef& x, const OpRef& y) {
    const auto &cx = col(x), &cy = col(y);
    if (cx.start[x.index] != cy.start[y.index]) return cx.start[x.index] < cy.start[y.index];
    return cx.end[x.index] > cy.end[y.index];
  });
  rowOf_[0].assign(compute.size(), 0);
  rowOf_[1].assign(other.size(), 0);
  positionOf_[0].assign(compute.size(), 0);
  positionOf_[1].assign(other.size(), 0);
  std::vector<std::int64_t> open;  // ends of the ranges enclosing the current op, outermost first
  for (const OpRef& ref : order) {
    const auto& c = col(ref);
    const std::int64_t s = c.start[ref.index], e = c.end[ref.index];
    while (!open.empty() && open.back() <= s)
      open.pop_back();
    const int row = std::min(static_cast<int>(open.size()), maxRows - 1);
    open.push_back(e);
    if (row >= static_cast<int>(rows_.size())) {
      rows_.resize(row + 1);
      sources_.resize(row + 1);
    }
    auto& dst = rows_[row];
    rowOf_[slot(ref.lane)][ref.index] = static_cast<std::uint8_t>(row);
    positionOf_[slot(ref.lane)][ref.index] = static_cast<std::uint32_t>(dst.size());
    dst.push(s, e, c.kind[ref.index], c.stage[ref.index], c.microbatch[ref.index],
             c.step[ref.index], c.peer[ref.index], c.bytes[ref.index], c.name[ref.index]);
    sources_[row].push_back(ref);
  }
  // Every row took its ops in start order, so each is a sorted lane with an index of its own.
  for (const auto& lane : rows_)
    indexes_.emplace_back(lane);
}

DepthRows::Place DepthRows::placeOf(Lane lane, std::size_t index) const {
  if (!nested() || (lane != Lane::Compute && lane != Lane::Other)) return {0, index};
  const int s = slot(lane);
  if (index >= rowOf_[s].size()) return {0, index};
  return {rowOf_[s][index], positionOf_[s][index]};
}

std::size_t DepthRows::bytes() const {
  std::size_t n = 0;
  for (const auto& lane : rows_)
    n += lane.size() * (8 * 3 + 4 * 5 + 1 + sizeof(OpRef) + 5);
  for (const auto& index : indexes_)
    n += index.bytes();
  return n;
}

}  // namespace ps::ui
