#include "ui/DarkPalette.h"

#include <QColor>

namespace ps::ui {

QPalette darkPalette() {
  const QColor window(0x2b, 0x2b, 0x2b), base(0x1e, 0x1e, 0x1e), button(0x3a, 0x3a, 0x3a);
  const QColor text(0xe0, 0xe0, 0xe0), highlight(0x3d, 0x8e, 0xe6);
  QPalette p(button, window);  // derives Light, Midlight, Mid, Dark, Shadow from the button
  for (auto group : {QPalette::Active, QPalette::Inactive}) {
    p.setColor(group, QPalette::Window, window);
    p.setColor(group, QPalette::WindowText, text);
    p.setColor(group, QPalette::Base, base);
    p.setColor(group, QPalette::AlternateBase, window);
    p.setColor(group, QPalette::Text, text);
    p.setColor(group, QPalette::Button, button);
    p.setColor(group, QPalette::ButtonText, text);
    p.setColor(group, QPalette::BrightText, QColor(0xff, 0x7b, 0x72));
    p.setColor(group, QPalette::Highlight, highlight);
    p.setColor(group, QPalette::HighlightedText, Qt::white);
    p.setColor(group, QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
    p.setColor(group, QPalette::ToolTipBase, QColor(0x3f, 0x3f, 0x46));
    p.setColor(group, QPalette::ToolTipText, text);
    p.setColor(group, QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    p.setColor(group, QPalette::LinkVisited, QColor(0xb3, 0x9d, 0xff));
  }
  // Disabled: text well dimmed, buttons flatter than enabled ones, no highlight.
  const QColor dimText(0x80, 0x80, 0x80);
  p.setColor(QPalette::Disabled, QPalette::Window, window);
  p.setColor(QPalette::Disabled, QPalette::WindowText, dimText);
  p.setColor(QPalette::Disabled, QPalette::Base, QColor(0x26, 0x26, 0x26));
  p.setColor(QPalette::Disabled, QPalette::AlternateBase, window);
  p.setColor(QPalette::Disabled, QPalette::Text, dimText);
  p.setColor(QPalette::Disabled, QPalette::Button, QColor(0x30, 0x30, 0x30));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, dimText);
  p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x4a, 0x4a, 0x4a));
  p.setColor(QPalette::Disabled, QPalette::HighlightedText, dimText);
  p.setColor(QPalette::Disabled, QPalette::PlaceholderText, QColor(0x66, 0x66, 0x66));
  p.setColor(QPalette::Disabled, QPalette::Light, QColor(0x38, 0x38, 0x38));
  return p;
}

}  // namespace ps::ui
