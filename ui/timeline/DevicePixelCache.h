#pragma once
// One cached image of widget content, drawn at the target's device pixel ratio so that blitting
// it is an exact 1:1 copy (DESIGN §7.4): never a 1x image scaled up, which blurs text and 1-px
// lines on high-DPI screens. Content is redrawn only when its key changes.

#include <QImage>
#include <QSize>

#include <cstdint>
#include <functional>

class QPainter;
class QPaintDevice;

namespace ps::ui {

class DevicePixelCache {
 public:
  // The whole-number device scale of `p` when a cached image can be blitted through it 1:1
  // (a raster target, scale only, integer device offset), or 0: then paint directly.
  static int blitScale(const QPainter& p);

  // The image for `key`: `size` logical pixels at `scale`, drawn by `paint` (which gets a
  // painter in logical coordinates, with the font resolution of `like`) when the key, size or
  // scale changed since the last call.
  const QImage& image(std::uint64_t key, QSize size, int scale, const QPaintDevice& like,
                      const std::function<void(QPainter&)>& paint);
  // Copies the logical rect `source` of the current image to `target` (same size) in `p`.
  void blit(QPainter& p, QPoint target, const QRect& source) const;

  int redraws() const { return redraws_; }

 private:
  QImage image_;
  std::uint64_t key_ = 0;
  int scale_ = 0;
  int redraws_ = 0;
};

}  // namespace ps::ui
