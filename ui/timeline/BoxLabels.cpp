#include "ui/timeline/BoxLabels.h"

#include <QFontMetrics>
#include <QPainter>
#include <QPalette>

#include <algorithm>

#include "ui/timeline/KindPalette.h"

namespace ps::ui {

namespace {

// Readable on the box: on a dimmed one (outside a search) the text recedes with it.
QColor boxLabelColour(const TimelineData& data, const SceneBox& b, const QPalette& palette) {
  if (!data.filtering() || data.highlighted(b.cols, b.first, b.count)) return kindTextColor(b.kind);
  QColor c = palette.color(QPalette::WindowText);
  c.setAlpha(90);
  return c;
}

}  // namespace

QStaticText BoxLabels::number(const TimelineData& data, const SceneBox& b) {
  const StageChunks& chunks = data.chunks();
  const int perRank = std::max(1, chunks.chunksPerRank());
  const std::int32_t mb = b.cols->microbatch[b.first];
  QStaticText spare;
  QStaticText* text = &spare;
  const std::int64_t key = static_cast<std::int64_t>(mb) * perRank + b.chunk;
  if (key < (1 << 16)) {
    if (static_cast<std::size_t>(key) >= numberText_.size()) numberText_.resize(key + 1);
    text = &numberText_[key];
  }
  if (text->text().isEmpty()) {
    text->setText(chunks.marksChunks() ? QString("%1·%2").arg(mb).arg(b.chunk)
                                       : QString::number(mb));
    text->setTextFormat(Qt::PlainText);
  }
  return *text;  // implicitly shared: the copy is cheap
}

bool BoxLabels::clear(const QRect& rect, std::size_t rowStart) const {
  for (std::size_t k = rowStart; k < labels_.size(); ++k)
    if (labels_[k].rect.adjusted(-2, 0, 2, 0).intersects(rect)) return false;
  return true;
}

void BoxLabels::place(const TimelineScene& scene, const TimelineData& data, const QPalette& palette,
                      const QFont& font) {
  if (font_ != font) {
    font_ = font;
    numberText_.clear();
  }
  labels_.clear();
  const QFontMetrics fm(font_);
  std::size_t rowStart = 0;
  int rowY = -1;
  for (const auto& b : scene.boxes()) {
    if (!b.labelled || b.count != 1 || b.rect.width() < 16 || b.drawn.height() < 10) continue;
    if (b.rect.y() != rowY) {  // a row's boxes come together
      rowY = b.rect.y();
      rowStart = labels_.size();
    }
    Label label;
    label.colour = boxLabelColour(data, b, palette);
    if (b.cols->microbatch[b.first] >= 0) {
      label.number = number(data, b);
      const QSizeF size = label.number.size();
      if (size.width() + 4 > b.rect.width()) continue;
      label.at = QRectF(QPointF(b.rect.x() + (b.rect.width() - size.width()) / 2,
                                b.rect.y() + (b.rect.height() - size.height()) / 2),
                        size);
      label.rect = label.at.toAlignedRect();
    } else {
      // Imported ops have names but no micro-batch: the name, elided, in boxes wide enough.
      const std::string* name = data.run()->nameOf(b.cols->name[b.first]);
      if (!name || b.rect.width() < 40) continue;
      const QRect inner = b.drawn.adjusted(4, 0, -4, 0);
      label.name = fm.elidedText(QString::fromStdString(*name), Qt::ElideRight, inner.width());
      if (label.name.size() < 2) continue;
      label.at = inner;
      const int w = std::min(inner.width(), fm.horizontalAdvance(label.name));
      label.rect = QRect(inner.center().x() + 1 - w / 2,
                         inner.y() + (inner.height() - fm.height()) / 2, w, fm.height());
    }
    if (clear(label.rect, rowStart)) labels_.push_back(std::move(label));
  }
}

void BoxLabels::paint(QPainter& p) const {
  p.setFont(font_);
  for (const Label& label : labels_) {
    p.setPen(label.colour);
    if (label.name.isEmpty())
      p.drawStaticText(label.at.topLeft(), label.number);
    else
      p.drawText(label.at, Qt::AlignCenter, label.name);
  }
}

QRegion BoxLabels::area() const {
  QRegion region;
  for (const Label& label : labels_)
    region += label.rect.adjusted(-1, -1, 1, 1);
  return region;
}

}  // namespace ps::ui
