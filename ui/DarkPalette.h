#pragma once
// The app's dark palette. Every colour group is set, not only the active one: Qt derives nothing
// for the Disabled group or PlaceholderText from a hand-set palette, so without them disabled
// buttons look enabled and placeholder text is dark grey on dark grey.

#include <QPalette>

namespace ps::ui {

QPalette darkPalette();

}  // namespace ps::ui
