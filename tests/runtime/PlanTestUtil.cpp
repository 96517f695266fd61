#include "tests/runtime/PlanTestUtil.h"

#include <stdexcept>

namespace ps::test {

using runtime::Action;
using runtime::Plan;

namespace {
Action parseLabel(const std::string& label) {
  std::size_t i = 0;
  while (i < label.size() && std::isdigit(static_cast<unsigned char>(label[i])))
    ++i;
  std::size_t j = i;
  while (j < label.size() && !std::isdigit(static_cast<unsigned char>(label[j])))
    ++j;
  auto kind = trace::parseOpKind(label.substr(i, j - i));
  if (!kind || i == 0 || j == label.size()) throw std::invalid_argument("bad label " + label);
  return Action{*kind, std::stoi(label.substr(0, i)), std::stoi(label.substr(j))};
}
}  // namespace

Plan chainPlan(int ranks, int microbatches, const std::vector<std::vector<std::string>>& rows) {
  Plan p;
  p.schedule = "hand";
  p.numRanks = ranks;
  p.numStages = ranks;
  p.numLayers = ranks;
  p.placement.resize(1);
  for (int s = 0; s < ranks; ++s)
    p.placement[0].push_back({s, s, s});
  p.microbatches.resize(microbatches);
  p.programs.resize(ranks);
  for (int r = 0; r < ranks; ++r)
    for (const auto& cell : rows[r]) {
      p.programs[r].push_back(parseLabel(cell));
      if (p.programs[r].back().kind == trace::OpKind::I) p.splitBackward = true;
    }
  return p;
}

Plan oneFOneB(int p, int m) {
  std::vector<std::vector<std::string>> rows(p);
  for (int r = 0; r < p; ++r) {
    const int warmup = std::min(p - r - 1, m);
    int f = 0, b = 0;
    auto F = [&] { rows[r].push_back(std::to_string(r) + "F" + std::to_string(f++)); };
    auto B = [&] { rows[r].push_back(std::to_string(r) + "B" + std::to_string(b++)); };
    for (int i = 0; i < warmup; ++i)
      F();
    while (f < m) {
      F();
      B();
    }
    while (b < m)
      B();
  }
  return chainPlan(p, m, rows);
}

}  // namespace ps::test
