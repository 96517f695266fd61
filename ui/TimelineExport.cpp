#include "ui/TimelineExport.h"

#include <QFile>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

#include "trace/Units.h"
#include "ui/LegendWidget.h"
#include "ui/LoadedRun.h"
#include "ui/TimelineArea.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

constexpr int kTitleHeight = 28;

// Title, timeline, legend, top to bottom, at the painter's origin.
void paintFramed(QPainter& p, TimelineView& view, LegendWidget& legend, const QString& title) {
  const QPalette& pal = view.palette();
  const int w = view.width();
  p.fillRect(QRect(0, 0, w, kTitleHeight), pal.window());
  QFont f = view.font();
  f.setBold(true);
  p.setFont(f);
  p.setPen(pal.windowText().color());
  p.drawText(QRect(8, 0, w - 16, kTitleHeight), Qt::AlignVCenter | Qt::AlignLeft,
             p.fontMetrics().elidedText(title, Qt::ElideRight, w - 16));
  view.render(&p, QPoint(0, kTitleHeight), QRegion(), QWidget::DrawChildren);
  const int legendTop = kTitleHeight + view.height();
  p.fillRect(QRect(0, legendTop, w, legend.height()), pal.window());
  legend.render(&p, QPoint(0, legendTop), QRegion(), QWidget::DrawChildren);
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
  LegendWidget legend;
  legend.setPalette(view.palette());
  legend.resize(view.width(), legend.heightForWidth(view.width()));
  const QSize size(view.width(), kTitleHeight + view.height() + legend.height());
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
      paintFramed(p, view, legend, title);
    }
    if (!QFile::exists(path)) return Error{path.toStdString() + ": cannot write the SVG"};
    return {};
  }
  const qreal dpr = view.devicePixelRatioF();
  QImage image(size * dpr, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(dpr);
  image.fill(view.palette().window().color());
  {
    QPainter p(&image);
    paintFramed(p, view, legend, title);
  }
  if (!image.save(path))
    return Error{path.toStdString() +
                 ": cannot write the image (unknown suffix or a folder that cannot be written)"};
  return {};
}

}  // namespace ps::ui
