#include "ui/timeline/KindPalette.h"

namespace ps::ui {

QColor kindColor(trace::OpKind kind) {
  using trace::OpKind;
  switch (kind) {
    case OpKind::F:
      return QColor(0x00, 0x72, 0xB2);  // blue
    case OpKind::B:
      return QColor(0xD5, 0x5E, 0x00);  // vermillion
    case OpKind::I:
      return QColor(0xE6, 0x9F, 0x00);  // orange
    case OpKind::W:
      return QColor(0x00, 0x9E, 0x73);  // bluish green
    case OpKind::R:
      return QColor(0x56, 0xB4, 0xE9);  // sky blue
    case OpKind::OPT:
      return QColor(0xCC, 0x79, 0xA7);  // reddish purple
    case OpKind::FILL:
      return QColor(0xF0, 0xE4, 0x42);  // yellow
    case OpKind::SEND_F:
    case OpKind::RECV_F:
      return QColor(0x6F, 0x8F, 0xAF);
    case OpKind::SEND_B:
    case OpKind::RECV_B:
      return QColor(0xB0, 0x8A, 0x6A);
    case OpKind::AR:
    case OpKind::A2A:
      return QColor(0x88, 0x66, 0xAA);
    case OpKind::OFFLOAD:
    case OpKind::RELOAD:
      return QColor(0x99, 0x99, 0x99);
    case OpKind::OTHER:
      return QColor(0x77, 0x77, 0x77);
  }
  return Qt::gray;
}

QColor kindTextColor(trace::OpKind kind) {
  const QColor c = kindColor(kind);
  return (0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue()) > 150 ? Qt::black : Qt::white;
}

QColor bubbleColor(bool dark) {
  return dark ? QColor(0x5a, 0x2a, 0x2a) : QColor(0xf6, 0xd5, 0xd5);
}

}  // namespace ps::ui
