#include "ui/StatsPanel.h"

#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QTabBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdio>
#include <string>

#include "runtime/schedules/ClosedForms.h"
#include "trace/analysis/ConfigJson.h"
#include "trace/analysis/FigureCoverage.h"
#include "trace/analysis/ReportFormat.h"
#include "trace/analysis/RunExplanation.h"
#include "ui/IdleCauseLegend.h"
#include "ui/LegendWidget.h"
#include "ui/LoadedRun.h"
#include "ui/StepsPanel.h"
#include "ui/import/ImportRequest.h"

namespace ps::ui {
namespace {

// The schedule's paper bubble beside the measured one, on the line after "bubble ratio". p is
// the ranks the trace holds, never more than the header claims: a header claiming 2^31-1 ranks
// (issue 12 case 7) must not reach the formulas (2p overflows there).
std::string withAnalyticBubble(std::string report, const trace::RunTrace& trace,
                               const trace::RunAnalysis& analysis,
                               const trace::RunExplanation* why) {
  const trace::RunInfo& run = trace.info;
  if (!run.schedule || !run.num_microbatches || isImportedProfileFormat(run.source)) return report;
  const int ranks = static_cast<int>(std::min<std::size_t>(
      trace.ranks.size(), static_cast<std::size_t>(std::max(0, run.num_ranks))));
  // --dp D: D pipelines of ranks / D ranks, each taking M / D of the micro-batches.
  const int replicas = trace::dataParallelOf(run);
  const auto analytic =
      runtime::analyticBubble(*run.schedule, ranks / replicas, *run.num_microbatches / replicas,
                              trace::chunksOf(run).value_or(1));
  const auto line = report.find("bubble ratio");
  if (!analytic || line == std::string::npos) return report;
  const auto end = report.find('\n', line);
  char text[160];
  std::snprintf(text, sizeof text, "paper bubble   %.2f %%  %s with F = t, B = 2t, free links\n",
                analytic->value * 100.0, analytic->formula.c_str());
  std::string insert = text;
  // Why the two differ, cause by cause (the attribution's points of the step time).
  if (why != nullptr && analysis.bubble_ratio)
    for (const std::string& gap :
         trace::paperGapLines(*why, analytic->value, *analysis.bubble_ratio))
      insert += "  " + gap + "\n";
  report.insert(end == std::string::npos ? report.size() : end + 1, insert);
  return report;
}

// TeraPipe's token slices: the trace counts the slices as the micro-batches (the pipeline's
// units, the paper bubble's m) while the Plan panel's M counts the sequences cut into them: said
// on the line after the counts (issue 34 item 20: "M 1" beside a run of 25 micro-batches).
std::string withTokenSlices(std::string report, const trace::RunInfo& run) {
  const auto slices = trace::jsonTopLevelString(run.config_json, "token_slices");
  const auto sequences = trace::jsonTopLevelInt(run.config_json, "microbatches");
  if (!slices || slices->empty() || !sequences || *sequences <= 0 || !run.num_microbatches ||
      *run.num_microbatches % *sequences != 0)
    return report;
  const auto counts = report.find("\nranks ");  // "ranks 8  stages 8  micro-batches 25 ..."
  const auto end = counts == std::string::npos ? counts : report.find('\n', counts + 1);
  if (end == std::string::npos) return report;
  const long long m = *sequences, k = *run.num_microbatches / m;
  const std::string text = "token slices   " + std::to_string(m) + " sequence" +
                           (m == 1 ? "" : "s") + " (M) × " + std::to_string(k) + " slices (" +
                           *slices + ") = the " + std::to_string(*run.num_microbatches) +
                           " micro-batches pipelined\n";
  report.insert(end + 1, text);
  return report;
}

}  // namespace

QString statsText(const LoadedRun& run) {
  std::string text = withAnalyticBubble(
      withTokenSlices(trace::reportText(run.analysis, run.why.get()), run.trace->info), *run.trace,
      run.analysis, run.why.get());
  const std::string coverage =
      trace::coverageText(trace::figureCoverage(*run.trace, run.analysis), run.analysis);
  if (!coverage.empty()) text += "\n" + coverage + "\n";
  if (run.explaining)
    text += "\nbubble causes and critical path: being worked out...\n";
  else if (!run.why)
    text += "\nbubble causes and critical path: not computed in the app for runs of more than " +
            std::to_string(kExplainMaxOps) + " ops (`pipescope-cli report` gives them)\n";
  // What the loader left out of a damaged or hostile file (ops beyond ±2^52 ns, ...).
  if (!run.trace->warnings.empty()) {
    text += "\nloaded with warnings:\n";
    for (const auto& w : run.trace->warnings)
      text += "  " + w + "\n";
  }
  return QString::fromStdString(text);
}

StatsPanel::StatsPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("statsPanel");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(new LegendWidget(this));
  layout->addWidget(new IdleCauseLegend(this));
  // A preset's text scrolls in a few lines' height: the report below keeps the room.
  teaching_ = new QLabel(this);
  teaching_->setObjectName("teachingText");
  teaching_->setWordWrap(true);
  teaching_->setTextFormat(Qt::RichText);
  teachingScroll_ = new QScrollArea(this);
  teachingScroll_->setWidget(teaching_);
  teachingScroll_->setWidgetResizable(true);
  teachingScroll_->setFrameShape(QFrame::NoFrame);
  teachingScroll_->setMaximumHeight(5 * fontMetrics().height());
  // Showing the text must not make the dock taller (that takes rows from the timeline): it and
  // the report share the dock's height, each down to a couple of lines.
  teachingScroll_->setMinimumHeight(2 * fontMetrics().height());
  teachingScroll_->setVisible(false);
  layout->addWidget(teachingScroll_);
  // The report, and beside it the run's steps and stragglers (StepsPanel).
  auto* tabs = new QTabWidget(this);
  tabs->setObjectName("statsTabs");
  report_ = new QPlainTextEdit(tabs);
  report_->setObjectName("reportView");
  report_->setReadOnly(true);
  report_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  report_->setPlaceholderText("Open a trace file (File → Open) to see its report.");
  report_->setMinimumHeight(3 * report_->fontMetrics().height());
  steps_ = new StepsPanel(tabs);
  tabs->addTab(report_, "Report");
  tabs->addTab(steps_, "Steps");
  // The Steps page's two scroll areas would ask for ~180 px: below that each page scrolls.
  tabs->setMinimumHeight(tabs->tabBar()->sizeHint().height() + 5 * fontMetrics().height());
  layout->addWidget(tabs, 1);
}

void StatsPanel::showRun(const std::shared_ptr<const LoadedRun>& run) {
  if (auto* legend = findChild<LegendWidget*>("legend"))
    legend->setRun(run ? run->trace.get() : nullptr);  // its lighter and hatched fills
  if (!run) return clear();
  teachingScroll_->setVisible(!teachingRun_.isEmpty() &&
                              QString::fromStdString(run->trace->info.name) == teachingRun_);
  report_->setPlainText(statsText(*run));
  steps_->showRun(run);
}

void StatsPanel::clear() {
  report_->clear();
  steps_->clear();
}

void StatsPanel::showTeaching(const QString& title, const QString& reference,
                              const QString& paragraph, const QString& runName) {
  teaching_->setText("<b>" + title.toHtmlEscaped() + "</b><br><i>" + reference.toHtmlEscaped() +
                     "</i><br>" + paragraph.toHtmlEscaped());
  teachingRun_ = title.isEmpty() ? QString() : runName;
  teachingScroll_->setVisible(!teachingRun_.isEmpty());  // its run is on its way
}

QString StatsPanel::teachingText() const {
  return teachingScroll_->isHidden() ? QString() : teaching_->text();
}

QString StatsPanel::text() const {
  return report_->toPlainText();
}

}  // namespace ps::ui
