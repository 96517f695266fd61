#include "ui/TimelineExport.h"

#include <QApplication>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QStyle>
#include <QSvgGenerator>

#include "trace/Units.h"
#include "ui/IdleCauseLegend.h"
#include "ui/LegendWidget.h"
#include "ui/LoadedRun.h"
#include "ui/TimelineArea.h"
#include "ui/timeline/RankGutter.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

constexpr int kTitleHeight = 28;

// What the figure is drawn from: a view of its own in the light palette, set to what `shown`
// shows (range, scroll, overlays) and nothing of the user's interaction with it.
struct CleanFigure {
  QPalette palette = QApplication::style()->standardPalette();
  TimelineView view;
  LegendWidget legend;
  IdleCauseLegend causes;

  CleanFigure(const TimelineView& shown, const LoadedRun& run) {
    for (QWidget* w : {static_cast<QWidget*>(&view), static_cast<QWidget*>(&legend),
                       static_cast<QWidget*>(&causes)}) {
      w->setAttribute(Qt::WA_DontShowOnScreen);
      w->setPalette(palette);
    }
    view.resize(shown.size());
    view.setCompactTracks(shown.compactTracks());
    view.setRun(run.trace, run.analysis.steps);
    view.setExplanation(run.why);
    view.setIdleCausesVisible(shown.idleCausesVisible());
    view.setCriticalPathVisible(shown.criticalPathVisible());
    view.setFlowsVisible(shown.flowsVisible());
    view.setVisibleRange(shown.visibleRange());
    view.setVerticalOffset(shown.verticalOffset());
    legend.setRun(run.trace.get());
    legend.resize(shown.width(), legend.heightForWidth(shown.width()));
    causes.resize(shown.width(), causes.sizeHint().height());
  }
  QSize size() const {
    return {view.width(), kTitleHeight + view.height() + legend.height() + causes.height() + 4};
  }
};

// The gutter's collapse and pin marks are controls, not content: covered with the gutter's
// ground beside each track's compute band (the rank label sits between the two marks).
void coverGutterMarks(QPainter& p, const CleanFigure& f, int top) {
  const QColor ground = f.palette.color(QPalette::Base);
  for (int rank : f.view.visibleRanks()) {
    const QRect band = f.view.trackRect(rank).translated(0, top);
    if (band.isEmpty()) continue;
    p.fillRect(QRect(0, band.top(), RankGutter::kMarkWidth, band.height()), ground);
    p.fillRect(QRect(TimelineView::kGutter - RankGutter::kMarkWidth, band.top(),
                     RankGutter::kMarkWidth, band.height()),
               ground);
  }
}

// Title, timeline, kind legend, idle-cause key, top to bottom, at the painter's origin.
void paintFramed(QPainter& p, CleanFigure& f, const QString& title) {
  const int w = f.view.width();
  p.fillRect(QRect(QPoint(0, 0), f.size()), f.palette.window());
  QFont font = f.view.font();
  font.setBold(true);
  p.setFont(font);
  p.setPen(f.palette.windowText().color());
  p.drawText(QRect(8, 0, w - 16, kTitleHeight), Qt::AlignVCenter | Qt::AlignLeft,
             p.fontMetrics().elidedText(title, Qt::ElideRight, w - 16));
  f.view.render(&p, QPoint(0, kTitleHeight), QRegion(), QWidget::DrawChildren);
  coverGutterMarks(p, f, kTitleHeight);
  const int legendTop = kTitleHeight + f.view.height();
  f.legend.render(&p, QPoint(0, legendTop), QRegion(), QWidget::DrawChildren);
  f.causes.render(&p, QPoint(0, legendTop + f.legend.height() + 2), QRegion(),
                  QWidget::DrawChildren);
}

}  // namespace

QString exportTitle(const LoadedRun& run) {
  QString title = timelineTitle(run, {});
  if (run.analysis.step_time_ns)
    title += " · step " + QString::fromStdString(trace::formatDuration(*run.analysis.step_time_ns));
  if (run.analysis.bubble_ratio)
    title +=
        " · bubble " + QString::fromStdString(trace::formatPercent(*run.analysis.bubble_ratio));
  return title;
}

Status exportTimelineFile(TimelineView& view, const LoadedRun& run, const QString& path) {
  CleanFigure figure(view, run);
  const QSize size = figure.size();
  const QString title = exportTitle(run);
  if (path.endsWith(".svg", Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(title);
    svg.setDescription("PipeScope timeline");
    {
      QPainter p;
      if (!p.begin(&svg)) return Error{path.toStdString() + ": cannot write the SVG"};
      paintFramed(p, figure, title);
    }
    if (!QFile::exists(path)) return Error{path.toStdString() + ": cannot write the SVG"};
    return {};
  }
  const qreal dpr = view.devicePixelRatioF();
  QImage image(size * dpr, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(dpr);
  image.fill(figure.palette.window().color());
  {
    QPainter p(&image);
    paintFramed(p, figure, title);
  }
  if (!image.save(path))
    return Error{path.toStdString() +
                 ": cannot write the image (unknown suffix or a folder that cannot be written)"};
  return {};
}

}  // namespace ps::ui
