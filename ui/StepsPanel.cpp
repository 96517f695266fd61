#include "ui/StepsPanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QTableView>
#include <QVBoxLayout>

#include "trace/Units.h"
#include "trace/analysis/StepGraph.h"
#include "ui/LoadedRun.h"
#include "ui/StepsModel.h"

namespace ps::ui {
namespace {

QString ns(double v) {
  return QString::fromStdString(trace::formatDuration(static_cast<std::int64_t>(v)));
}
QString pct(double v) {
  return QString::fromStdString(trace::formatPercent(v));
}

QString spreadCells(const trace::Spread& s, bool duration) {
  const auto cell = [&](double v) { return "<td align=right>" + (duration ? ns(v) : pct(v)); };
  return cell(s.median) + cell(s.p90) + cell(s.max);
}

}  // namespace

QString stepsSummaryHtml(const trace::StepTable& t, const trace::StragglerTable& st) {
  if (t.rows.empty()) return "No complete step with pipeline compute ops.";
  const int n = static_cast<int>(st.steps.size());
  QString html;
  for (const trace::StragglerRow& r : st.ranks)
    if (r.flagged)
      html += QString(
                  "<p><b><font color='#c83232'>Straggler: rank %1</font></b> was the culprit "
                  "in %2 of %3 steps (its ops %4x slower than its peers').</p>")
                  .arg(r.rank)
                  .arg(r.culpritSteps)
                  .arg(n)
                  .arg(r.slownessSum / r.culpritSteps, 0, 'f', 2);
  // The spread over steps and the straggler table side by side: half the height.
  html += "<table><tr><td valign=top>";
  html += QString("<table cellspacing=6><tr><th align=left>%1 steps<th>median<th>p90<th>max")
              .arg(t.rows.size());
  html += "<tr><td>step time" + spreadCells(t.spanNs, true);
  html += "<tr><td>bubble" + spreadCells(t.bubble, false);
  for (int c = 0; c < trace::kIdleCauseCount; ++c)
    if (t.causeShare[static_cast<std::size_t>(c)].max > 0)
      html += "<tr><td>&nbsp;&nbsp;" +
              QString::fromStdString(
                  std::string(trace::idleCauseLabel(static_cast<trace::IdleCause>(c)))) +
              spreadCells(t.causeShare[static_cast<std::size_t>(c)], false);
  html += "</table><td width=24><td valign=top>";
  html += QString(
      "<table cellspacing=6><tr><th align=left>rank<th>finished last<th>culprit"
      "<th>slower<th>victim<th>waited (mean)");
  for (const trace::StragglerRow& r : st.ranks) {
    const QString mark = r.flagged ? " <b><font color='#c83232'>◀ straggler</font></b>" : "";
    html += QString(
                "<tr><td>%1<td align=right>%2<td align=right>%3 (%4 %)<td align=right>%5"
                "<td align=right>%6 (%7 %)<td align=right>%8<td>%9")
                .arg(r.rank)
                .arg(r.finishedLast)
                .arg(r.culpritSteps)
                .arg(100.0 * r.culpritShare(n), 0, 'f', 0)
                .arg(r.culpritSteps ? QString::number(r.slownessSum / r.culpritSteps, 'f', 2) + "x"
                                    : QString("-"))
                .arg(r.victimSteps)
                .arg(100.0 * r.victimShare(n), 0, 'f', 0)
                .arg(r.victimSteps ? ns(static_cast<double>(r.waitedSumNs) / r.victimSteps)
                                   : QString("-"))
                .arg(mark);
  }
  html += "</table></table>";
  return html;
}

StepsPanel::StepsPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("stepsPanel");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  summary_ = new QLabel;
  summary_->setObjectName("stepsSummary");
  summary_->setTextFormat(Qt::RichText);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  // Summary above in a dozen lines (it scrolls past 8 ranks or so), the steps below.
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(summary_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setMaximumHeight(13 * fontMetrics().height());
  model_ = new StepsModel(this);
  view_ = new QTableView(this);
  view_->setObjectName("stepsTable");
  view_->setModel(model_);
  view_->verticalHeader()->hide();
  view_->horizontalHeader()->setStretchLastSection(true);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  layout->addWidget(scroll);
  layout->addWidget(view_, 1);
  clear();
}

void StepsPanel::showRun(const std::shared_ptr<const LoadedRun>& run) {
  if (!run) return clear();
  if (!run->why) {
    model_->clear();
    summary_->setText(run->explaining
                          ? "Steps and stragglers: being worked out..."
                          : "Steps and stragglers: not computed in the app for runs of this size "
                            "(`pipescope-cli report --steps` gives them).");
    return;
  }
  std::vector<int> steps;
  for (const trace::StepStats& s : run->analysis.steps)
    steps.push_back(s.step);
  const trace::StepGraph graph(*run->trace);
  auto table = trace::buildStepTable(run->analysis, run->why->bubbles);
  auto stragglers = trace::findStragglers(graph, run->why->bubbles, steps);
  summary_->setText(stepsSummaryHtml(table, stragglers));
  model_->setTables(std::move(table), std::move(stragglers));
  view_->resizeColumnsToContents();
}

void StepsPanel::clear() {
  model_->clear();
  summary_->setText("Open a trace file to see its steps.");
}

QString StepsPanel::summaryText() const {
  return summary_->text();
}

}  // namespace ps::ui
