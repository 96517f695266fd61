#include "ui/inspect/OpDetailsPanel.h"

#include <QEvent>
#include <QStringList>
#include <QTextBrowser>
#include <QTextDocument>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdio>

#include "trace/RunTrace.h"
#include "trace/Units.h"
#include "trace/analysis/OpRelations.h"
#include "trace/analysis/WideTime.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

using trace::OpKind;

const char* kNothing = "No op selected — click one in the timeline";

QString kindText(OpKind k) {
  static const char* what[trace::kOpKindCount] = {"forward",
                                                  "full backward",
                                                  "backward, inputs only",
                                                  "backward, weights only",
                                                  "recompute",
                                                  "optimizer step",
                                                  "bubble work",
                                                  "activation send",
                                                  "activation receive",
                                                  "gradient send",
                                                  "gradient receive",
                                                  "gradient all-reduce",
                                                  "all-to-all",
                                                  "activation offload",
                                                  "activation reload",
                                                  "imported work"};
  return QString("%1 (%2)").arg(
      QString::fromUtf8(trace::opKindName(k).data(), static_cast<int>(trace::opKindName(k).size())),
      what[static_cast<int>(k)]);
}

QString str(const std::string& s) {
  return QString::fromStdString(s).toHtmlEscaped();
}

// Bytes per second in decimal units, as links are rated.
QString rate(std::int64_t bytes, std::int64_t ns) {
  if (ns <= 0) return "— (the transfer took no recorded time)";
  const double perS = static_cast<double>(bytes) * 1e9 / static_cast<double>(ns);
  static const char* units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  double v = perS;
  int u = 0;
  while (v >= 1000.0 && u < 4) {
    v /= 1000.0;
    ++u;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return buf;
}

// "1F3 · rank 1" (torch's {stage}{KIND}{mb}), the original name for imported ops.
QString shortLabel(const trace::RunTrace& run, const trace::OpRef& o) {
  const trace::OpColumns& c = run.ranks[o.rank].lane(o.lane);
  const std::size_t i = o.index;
  const QString kind = QString::fromUtf8(trace::opKindName(c.kind[i]).data());
  QString label;
  if (c.stage[i] >= 0 && c.microbatch[i] >= 0)
    label = QString("%1%2%3").arg(c.stage[i]).arg(kind).arg(c.microbatch[i]);
  else if (const std::string* name = run.nameOf(c.name[i]))
    label = QString::fromStdString(*name).left(48);
  else
    label = kind;
  return QString("%1 · rank %2").arg(label.toHtmlEscaped()).arg(o.rank);
}

QString linkOf(const trace::OpRef& o) {
  return QString("op:%1:%2:%3").arg(o.rank).arg(static_cast<int>(o.lane)).arg(o.index);
}

// Inputs: how long before the op they ended; outputs: how long after it they start.
QString gapText(std::int64_t gap, bool input) {
  if (gap < 0) return "overlaps it";
  return QString::fromStdString(trace::formatDuration(gap)) + (input ? " before" : " after");
}

QString linkList(const trace::RunTrace& run, const trace::OpRef& self,
                 std::vector<trace::OpRef> ops, bool input, const QString& muted) {
  // Inputs latest-ending first (the one that held the op up leads), outputs earliest-starting
  // first; only the listed ones sorted: an optimizer step waits for every gradient op.
  const auto shown = ops.begin() + std::min<std::ptrdiff_t>(ops.size(), OpDetailsPanel::kMaxLinks);
  std::partial_sort(
      ops.begin(), shown, ops.end(), [&run, input](const trace::OpRef& a, const trace::OpRef& b) {
        const auto& ca = run.ranks[a.rank].lane(a.lane);
        const auto& cb = run.ranks[b.rank].lane(b.lane);
        return input ? ca.end[a.index] > cb.end[b.index] : ca.start[a.index] < cb.start[b.index];
      });
  if (ops.empty()) return QString("<span style=\"color:%1\">none recorded</span>").arg(muted);
  const trace::OpColumns& sc = run.ranks[self.rank].lane(self.lane);
  QStringList lines;
  for (std::size_t k = 0; k < ops.size() && k < OpDetailsPanel::kMaxLinks; ++k) {
    const trace::OpColumns& c = run.ranks[ops[k].rank].lane(ops[k].lane);
    const std::int64_t gap = input ? trace::satSub(sc.start[self.index], c.end[ops[k].index])
                                   : trace::satSub(c.start[ops[k].index], sc.end[self.index]);
    lines << QString("<a href=\"%1\">%2</a> <span style=\"color:%3\">%4</span>")
                 .arg(linkOf(ops[k]), shortLabel(run, ops[k]), muted, gapText(gap, input));
  }
  if (ops.size() > static_cast<std::size_t>(OpDetailsPanel::kMaxLinks))
    lines << QString("<span style=\"color:%1\">… and %2 more</span>")
                 .arg(muted)
                 .arg(ops.size() - OpDetailsPanel::kMaxLinks);
  return lines.join("<br>");
}

}  // namespace

OpDetailsPanel::OpDetailsPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("opDetailsPanel");
  // A browser rather than a label: it scrolls long lists itself, and its links are reachable
  // with Tab and Enter as well as the mouse.
  text_ = new QTextBrowser(this);
  text_->setObjectName("opDetailsText");
  text_->setOpenLinks(false);
  text_->setOpenExternalLinks(false);
  text_->setFrameShape(QFrame::NoFrame);
  text_->setPlainText(kNothing);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(text_);
  connect(text_, &QTextBrowser::anchorClicked, this,
          [this](const QUrl& url) { activate(url.toString()); });
}

void OpDetailsPanel::setTimeline(TimelineView* timeline) {
  if (timeline_) disconnect(timeline_, nullptr, this, nullptr);
  timeline_ = timeline;
  if (timeline_)
    connect(timeline_, &TimelineView::selectionChanged, this, &OpDetailsPanel::followSelection);
  followSelection();
}

void OpDetailsPanel::followSelection() {
  if (!timeline_) {
    showOp(nullptr, {});
    return;
  }
  const auto sel = timeline_->selection();
  showOp(timeline_->run(), {sel.rank, sel.lane, sel.index});
}

void OpDetailsPanel::showOp(const trace::RunTrace* run, const trace::OpRef& op) {
  const bool ok = run && op.valid() && static_cast<std::size_t>(op.rank) < run->ranks.size() &&
                  op.index < run->ranks[op.rank].lane(op.lane).size();
  run_ = ok ? run : nullptr;
  op_ = ok ? op : trace::OpRef{};
  if (!ok) {
    text_->setPlainText(kNothing);
    return;
  }
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  const QString muted = dark ? "#a0a0a0" : "#707070";
  const QString link = dark ? "#8ab4f8" : "#1a5fb4";
  const trace::OpColumns& c = run->ranks[op.rank].lane(op.lane);
  const std::size_t i = op.index;
  const OpKind kind = c.kind[i];
  QStringList rows;
  auto row = [&rows](const QString& key, const QString& value) {
    rows << QString("<tr><td><b>%1</b>&nbsp;&nbsp;</td><td>%2</td></tr>").arg(key, value);
  };
  auto orNone = [&muted](std::int32_t v) {
    return v >= 0 ? QString::number(v) : QString("<span style=\"color:%1\">—</span>").arg(muted);
  };
  row("Kind", kindText(kind));
  if (const std::string* name = run->nameOf(c.name[i])) row("Name", str(*name));
  row("Rank", QString::number(op.rank));
  row("Stage", orNone(c.stage[i]));
  row("Micro-batch", orNone(c.microbatch[i]));
  row("Step", QString::number(c.step[i]));
  row("Start", str(trace::formatDuration(c.start[i])));
  row("End", str(trace::formatDuration(c.end[i])));
  row("Duration", str(trace::formatDuration(trace::satSub(c.end[i], c.start[i]))));
  if (c.bytes[i] >= 0) row("Bytes", str(trace::formatBytes(c.bytes[i])));
  if (c.peer[i] >= 0)
    row("Peer", QString("%1 rank %2")
                    .arg(trace::isSend(kind)   ? "to"
                         : trace::isRecv(kind) ? "from"
                                               : "with")
                    .arg(c.peer[i]));
  if (c.bytes[i] >= 0 && (trace::isSend(kind) || trace::isRecv(kind)))
    row("Bandwidth", rate(c.bytes[i], trace::satSub(c.end[i], c.start[i])));

  const trace::OpRelations rel = trace::opRelations(*run, op);
  // The dark palette leaves Link at its default blue, unreadable on dark grey; the HTML import
  // takes anchor colours from the style sheet, not from the widget's palette.
  text_->document()->setDefaultStyleSheet(QString("a { color: %1; }").arg(link));
  QString html = QString("<table cellspacing=\"0\">%1</table>").arg(rows.join(""));
  html += QString("<p><b>Waits for</b> (%1)<br>%2</p>")
              .arg(rel.in.size())
              .arg(linkList(*run, op, rel.in, true, muted));
  html += QString("<p><b>Waited on by</b> (%1)<br>%2</p>")
              .arg(rel.out.size())
              .arg(linkList(*run, op, rel.out, false, muted));
  text_->setHtml(html);
}

void OpDetailsPanel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) showOp(run_, op_);  // muted and link colours
  QWidget::changeEvent(event);
}

void OpDetailsPanel::activate(const QString& link) {
  const QStringList parts = link.split(':');
  if (parts.size() != 4 || parts[0] != "op" || !run_) return;
  bool okR = false, okL = false, okI = false;
  const int rank = parts[1].toInt(&okR);
  const int lane = parts[2].toInt(&okL);
  const qulonglong index = parts[3].toULongLong(&okI);
  if (!okR || !okL || !okI || lane < 0 || lane >= trace::kLaneCount) return;
  const trace::OpRef target{rank, static_cast<trace::Lane>(lane), static_cast<std::size_t>(index)};
  if (timeline_ && timeline_->run() == run_)
    timeline_->centerOn({target.rank, target.lane, target.index});  // selects: we follow
  else
    showOp(run_, target);
  emit opActivated(target);
}

}  // namespace ps::ui
