#include "ui/timeline/IdleCauses.h"

#include <algorithm>

#include "trace/Units.h"

namespace ps::ui {

using trace::IdleCause;

QColor idleCauseColour(IdleCause cause, bool dark) {
  // Muted for the pipeline's own fill and drain, louder for what a better plan would remove.
  switch (cause) {
    case IdleCause::Warmup:
      return dark ? QColor(70, 90, 120) : QColor(196, 214, 236);
    case IdleCause::Drain:
      return dark ? QColor(95, 80, 120) : QColor(220, 206, 236);
    case IdleCause::Dependency:
      return dark ? QColor(80, 80, 80) : QColor(214, 214, 214);
    case IdleCause::Transfer:
      return QColor(0, 158, 115);  // Okabe-Ito bluish green
    case IdleCause::Imbalance:
      return QColor(213, 94, 0);  // vermillion
    case IdleCause::Barrier:
      return QColor(204, 121, 167);  // reddish purple
    case IdleCause::Collective:
      return QColor(86, 180, 233);  // Okabe-Ito sky blue
    case IdleCause::Order:
      return dark ? QColor(86, 160, 230) : QColor(0, 114, 178);  // Okabe-Ito blue
    case IdleCause::Other:
      break;
  }
  return dark ? QColor(150, 150, 150) : QColor(120, 120, 120);
}

QBrush idleCauseBrush(IdleCause cause, bool dark) {
  const QColor c = idleCauseColour(cause, dark);
  switch (cause) {
    case IdleCause::Transfer:
      return QBrush(c, Qt::BDiagPattern);
    case IdleCause::Imbalance:
      return QBrush(c, Qt::FDiagPattern);
    case IdleCause::Barrier:
      return QBrush(c, Qt::CrossPattern);
    case IdleCause::Collective:
      return QBrush(c, Qt::VerPattern);
    case IdleCause::Order:
      return QBrush(c, Qt::DiagCrossPattern);
    case IdleCause::Other:
      return QBrush(c, Qt::Dense6Pattern);
    default:
      return QBrush(c);
  }
}

IdleCauseIndex::IdleCauseIndex(const trace::BubbleAttribution& bubbles)
    : byStart_(bubbles.parts.size()), maxLength_(bubbles.parts.size(), 0) {
  for (std::size_t r = 0; r < bubbles.parts.size(); ++r) {
    auto& list = byStart_[r];
    list.reserve(bubbles.parts[r].size());
    for (const auto& p : bubbles.parts[r]) {
      list.push_back(&p);
      maxLength_[r] = std::max(maxLength_[r], p.end - p.start);
    }
    std::stable_sort(
        list.begin(), list.end(),
        [](const trace::IdlePart* a, const trace::IdlePart* b) { return a->start < b->start; });
  }
}

namespace {

QString dur(std::int64_t ns) {
  return QString::fromStdString(trace::formatDuration(ns));
}

// "2B3 on rank 2", or the kind alone for an op without stage or micro-batch.
QString opName(const trace::RunTrace& run, const trace::OpRef& op) {
  const trace::OpColumns& c = run.ranks[op.rank].lane(op.lane);
  const QString kind = QString::fromUtf8(trace::opKindName(c.kind[op.index]).data());
  const QString label =
      c.stage[op.index] >= 0 && c.microbatch[op.index] >= 0
          ? QString("%1%2%3").arg(c.stage[op.index]).arg(kind).arg(c.microbatch[op.index])
          : kind;
  return label + QString(" on rank %1").arg(op.rank);
}

QString partWords(const trace::RunTrace& run, const trace::IdlePart& part) {
  const QString cause = QString::fromUtf8(trace::idleCauseLabel(part.cause).data());
  const QString head = dur(part.end - part.start) + " " + cause;
  const bool known =
      part.waitedFor.valid() && static_cast<std::size_t>(part.waitedFor.rank) < run.ranks.size() &&
      part.waitedFor.index < run.ranks[part.waitedFor.rank].lane(part.waitedFor.lane).size();
  switch (part.cause) {
    case IdleCause::Warmup:
      return head + ": the pipeline filling up before this rank's first op";
    case IdleCause::Drain:
      return head + ": the pipeline draining after this rank's last op";
    case IdleCause::Barrier:
      return head + ": waiting for the other ranks' optimizer step";
    case IdleCause::Collective:
      return head + (known ? ": waiting for the all-to-all after " + opName(run, part.waitedFor)
                           : ": waiting for an all-to-all or embedding fetch");
    case IdleCause::Dependency:
      return head + (known ? ": waiting for " + opName(run, part.waitedFor) : QString());
    case IdleCause::Imbalance:
      return head + (known ? ": waiting for " + opName(run, part.waitedFor) +
                                 ", held up by a rank with more work"
                           : QString());
    case IdleCause::Order:
      return head + (known ? ": " + opName(run, part.waitedFor) +
                                 " was ready and could have run here (the rank's order held it)"
                           : ": another op of this rank was ready");
    case IdleCause::Transfer: {
      if (!known) return head + ": data in flight";
      const trace::OpColumns& c = run.ranks[part.waitedFor.rank].lane(part.waitedFor.lane);
      return head + QString(": data in flight on %1 -> %2")
                        .arg(c.peer[part.waitedFor.index])
                        .arg(part.waitedFor.rank);
    }
    case IdleCause::Other:
      break;
  }
  return head + ": not explained by the recorded dependencies";
}

}  // namespace

QString idleCauseLines(const trace::RunTrace& run, const IdleCauseIndex& index, int rank,
                       std::int64_t from, std::int64_t to) {
  QStringList lines;
  constexpr int kMaxLines = 6;
  int more = 0;
  index.forEachIn(rank, from, to, [&](const trace::IdlePart& part) {
    if (lines.size() < kMaxLines)
      lines << "  " + partWords(run, part);
    else
      ++more;
  });
  if (lines.isEmpty()) return {};
  if (more > 0) lines << QString("  … %1 more").arg(more);
  return "why:\n" + lines.join('\n');
}

}  // namespace ps::ui
