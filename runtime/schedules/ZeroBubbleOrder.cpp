#include "runtime/schedules/ZeroBubbleOrder.h"

#include "runtime/schedules/ScheduleUtil.h"

namespace ps::runtime::sched {

std::vector<Action> zeroBubbleRankOrder(int rank, int m, int warmup, int cycles) {
  std::vector<Action> prog;
  prog.reserve(3 * static_cast<std::size_t>(m));
  int nextF = 0, nextW = 0;
  while (nextF < warmup)
    prog.push_back(makeAction(OpKind::F, rank, nextF++));
  for (int j = 0; j < m; ++j) {
    prog.push_back(makeAction(OpKind::I, rank, j));
    if (j == m - 1) break;
    if (j < cycles) {
      prog.push_back(makeAction(OpKind::W, rank, nextW++));
      prog.push_back(makeAction(OpKind::F, rank, nextF++));
    } else if (nextF < m) {
      prog.push_back(makeAction(OpKind::F, rank, nextF++));
    } else {
      prog.push_back(makeAction(OpKind::W, rank, nextW++));
    }
  }
  while (nextW < m)
    prog.push_back(makeAction(OpKind::W, rank, nextW++));
  return prog;
}

}  // namespace ps::runtime::sched
