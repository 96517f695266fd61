#include "ui/timeline/DevicePixelCache.h"

#include <QPaintEngine>
#include <QPainter>

#include <cmath>

namespace ps::ui {

int DevicePixelCache::blitScale(const QPainter& p) {
  const QPaintEngine* engine = p.paintEngine();
  if (!engine || engine->type() != QPaintEngine::Raster) return 0;
  const QTransform t = p.deviceTransform();
  const double s = t.m11();
  if (t.type() > QTransform::TxScale || t.m22() != s || s < 1 || s > 16 || s != std::floor(s) ||
      t.dx() != std::floor(t.dx()) || t.dy() != std::floor(t.dy()))
    return 0;
  return static_cast<int>(s);
}

const QImage& DevicePixelCache::image(std::uint64_t key, QSize size, int scale,
                                      const QPaintDevice& like,
                                      const std::function<void(QPainter&)>& paint) {
  if (key == key_ && scale == scale_ && image_.deviceIndependentSize() == size) return image_;
  // Opaque, so a blit onto the usual targets is a plain copy.
  image_ = QImage(size * scale, QImage::Format_RGB32);
  image_.setDevicePixelRatio(scale);
  // Text in points comes out the size it has on `like` (a QImage defaults to 96 dpi).
  image_.setDotsPerMeterX(static_cast<int>(std::lround(like.logicalDpiX() / 0.0254)));
  image_.setDotsPerMeterY(static_cast<int>(std::lround(like.logicalDpiY() / 0.0254)));
  key_ = key;
  scale_ = scale;
  ++redraws_;
  QPainter p(&image_);
  paint(p);
  return image_;
}

void DevicePixelCache::blit(QPainter& p, QPoint target, const QRect& source) const {
  p.drawImage(QRect(target, source.size()), image_,
              QRect(source.topLeft() * scale_, source.size() * scale_));
}

}  // namespace ps::ui
