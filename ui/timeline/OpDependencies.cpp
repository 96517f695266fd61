#include "ui/timeline/OpDependencies.h"

namespace ps::ui {

using trace::Lane;
using trace::OpKind;

OpDependencies opDependencies(const trace::RunTrace& run, int rank, Lane laneOf, std::size_t i) {
  OpDependencies deps;
  if (laneOf != Lane::Compute) return deps;
  const auto& lane = run.ranks[rank].lane(Lane::Compute);
  const int stage = lane.stage[i], mb = lane.microbatch[i], step = lane.step[i];
  const OpKind kind = lane.kind[i];
  if (stage < 0 || mb < 0) return deps;
  auto find = [&](auto& into, int wantStage, std::initializer_list<OpKind> kinds) {
    for (std::size_t r = 0; r < run.ranks.size(); ++r) {
      const auto& l = run.ranks[r].lane(Lane::Compute);
      for (std::size_t k = 0; k < l.size(); ++k)
        if (l.stage[k] == wantStage && l.microbatch[k] == mb && l.step[k] == step)
          for (auto want : kinds)
            if (l.kind[k] == want) into.emplace_back(static_cast<int>(r), k);
    }
  };
  auto& in = deps.in;
  if (kind == OpKind::F) find(in, stage - 1, {OpKind::F});
  if (kind == OpKind::B || kind == OpKind::I) {
    find(in, stage + 1, {OpKind::B, OpKind::I});
    find(in, stage, {OpKind::F});
  }
  if (kind == OpKind::W) find(in, stage, {OpKind::I});
  // And the other way: the ops that wait for this one (the same rules read backwards).
  auto& out = deps.out;
  if (kind == OpKind::F) {
    find(out, stage + 1, {OpKind::F});
    find(out, stage, {OpKind::B, OpKind::I});
  }
  if (kind == OpKind::B || kind == OpKind::I) find(out, stage - 1, {OpKind::B, OpKind::I});
  if (kind == OpKind::I) find(out, stage, {OpKind::W});
  return deps;
}

}  // namespace ps::ui
