#pragma once
// Colours of op kinds: the Okabe–Ito colour-blind-safe palette, one hue per kind family.

#include <QColor>

#include "trace/OpKind.h"

namespace ps::ui {

QColor kindColor(trace::OpKind kind);
// Text colour readable on kindColor(kind).
QColor kindTextColor(trace::OpKind kind);
// The shade behind a rank's compute lane inside a step: what shows through is the bubble.
QColor bubbleColor(bool dark);

}  // namespace ps::ui
