#include "ui/StageEditor.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <map>

#include "runtime/cost/Partitioner.h"
#include "trace/Units.h"
#include "ui/ElidedLabel.h"
#include "ui/ToolTipEvent.h"

namespace ps::ui {
namespace {

QString durationText(double ns) {
  return QString::fromStdString(trace::formatDuration(static_cast<std::int64_t>(ns)));
}

}  // namespace

StageEditor::StageEditor(QWidget* parent) : QWidget(parent) {
  setObjectName("stageEditor");
  setMinimumHeight(60);
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);  // Tab reaches it; arrows then work the handles
}

void StageEditor::setModel(std::vector<double> layerNs, std::vector<int> boundaries) {
  layerNs_ = std::move(layerNs);
  missingStages_ = 0;
  timed_ = std::any_of(layerNs_.begin(), layerNs_.end(), [](double ns) { return ns > 0; });
  boundaries_ = std::move(boundaries);
  dragging_ = -1;
  // A run without a layer table (e.g. imported) or with inconsistent stages shows no cut.
  for (std::size_t b = 0; b < boundaries_.size(); ++b)
    if (boundaries_[b] <= (b ? boundaries_[b - 1] : 0) ||
        boundaries_[b] >= static_cast<int>(layerNs_.size())) {
      boundaries_.clear();
      break;
    }
  committed_ = boundaries_;
  // The keyboard selection survives the rerun an edit starts, so editing can go on.
  selected_ =
      boundaries_.empty() ? -1 : std::min(selected_, static_cast<int>(boundaries_.size()) - 1);
  updateSummaryToolTip();
  update();
}

void StageEditor::setRun(const trace::RunTrace& run) {
  // First layer of each stage (a stage repeats once per replica) and the layers they cover.
  std::map<int, int> firstLayer;
  int layers = static_cast<int>(run.layers.size());
  // A stage table naming layer 2^31-1 (a hostile file) must not allocate that many layers.
  constexpr int kMaxLayers = 1 << 16;
  for (const auto& st : run.stages) {
    if (st.first_layer < 0 || st.last_layer < st.first_layer || st.last_layer >= kMaxLayers)
      continue;
    auto [it, fresh] = firstLayer.emplace(st.stage, st.first_layer);
    if (!fresh) it->second = std::min(it->second, st.first_layer);
    layers = std::max(layers, st.last_layer + 1);
  }
  std::vector<double> layerNs(static_cast<std::size_t>(std::max(layers, 0)), 0.0);
  for (std::size_t l = 0; l < run.layers.size(); ++l)
    layerNs[l] = static_cast<double>(run.layers[l].fwd_ns.value_or(0)) +
                 static_cast<double>(run.layers[l].bwd_ns.value_or(0));
  std::vector<int> boundaries;
  for (const auto& [stage, first] : firstLayer)
    if (stage > firstLayer.begin()->first) boundaries.push_back(first);
  setModel(std::move(layerNs), std::move(boundaries));
}

void StageEditor::followShape(int layers, int stages) {
  const int shownStages = static_cast<int>(boundaries_.size()) + 1 + missingStages_;
  if (layers <= 0) layers = layerCount();  // not said: as shown
  if (stages <= 0) stages = shownStages;
  if (layers <= 0) return;
  if (layers == layerCount() && stages == shownStages) return;  // the shape shown: kept
  // The same layers keep their measured costs (a new stage count does not change a layer's);
  // new layers are untimed until a run measures them.
  std::vector<double> costs = layers == layerCount()
                                  ? layerNs_
                                  : std::vector<double>(static_cast<std::size_t>(layers), 0.0);
  if (layers < stages) {
    setModel(std::move(costs), {});
    missingStages_ = stages - layers;
  } else {
    // A knob that moves the stages drops hand-placed boundaries (the panel's rule): the run
    // balances, which for layers not yet measured is this even split.
    setModel(std::move(costs), runtime::evenBoundaries(layers, stages));
  }
  updateSummaryToolTip();
  update();
}

std::vector<int> StageEditor::cuts() const {
  std::vector<int> c = {0};
  c.insert(c.end(), boundaries_.begin(), boundaries_.end());
  c.push_back(static_cast<int>(layerNs_.size()));
  return c;
}

double StageEditor::stageNs(int stage) const {
  const auto c = cuts();
  double total = 0;
  for (int l = c[stage]; l < c[stage + 1]; ++l)
    total += layerNs_[l];
  return total;
}

void StageEditor::updateSummaryToolTip() {
  // Stage totals also live in the tooltip, for when the bar is too narrow for them.
  QStringList lines;
  const auto c = cuts();
  if (!layerNs_.empty())
    for (std::size_t s = 0; s + 1 < c.size(); ++s) {
      QString line = QString("stage %1: layers %2–%3").arg(s).arg(c[s]).arg(c[s + 1] - 1);
      if (timed_) line += ", " + durationText(stageNs(static_cast<int>(s)));
      lines << line;
    }
  if (!hint().isEmpty()) lines << hint();
  if (!boundaries_.empty())
    lines << "drag a handle, or Tab here: ←/→ select, Shift+←/→ move, Enter applies, Esc reverts";
  summary_ = lines.join('\n');
}

QString StageEditor::hint() const {
  if (missingStages_ > 0)
    return QString("fewer layers (%1) than stages (%2): raise Layers")
        .arg(layerCount())
        .arg(layerCount() + missingStages_);
  if (boundaries_.empty()) return {};
  if (static_cast<int>(layerNs_.size()) == static_cast<int>(boundaries_.size()) + 1)
    return "one layer per stage: raise Layers to move boundaries";
  return {};
}

double StageEditor::layerWidth() const {
  return layerNs_.empty() ? 1.0 : static_cast<double>(barRight() - barLeft()) / layerNs_.size();
}

int StageEditor::handleX(int b) const {
  return barLeft() + static_cast<int>(boundaries_[b] * layerWidth());
}

int StageEditor::layerAtX(int x) const {
  return std::clamp(static_cast<int>((x - barLeft()) / layerWidth() + 0.5), 0,
                    static_cast<int>(layerNs_.size()));
}

int StageEditor::handleAt(QPoint pos) const {
  // The nearest handle within reach: at 64 stages handles sit closer than the reach.
  int best = -1, bestDistance = 7;
  for (std::size_t b = 0; b < boundaries_.size(); ++b) {
    const int d = std::abs(pos.x() - handleX(static_cast<int>(b)));
    if (d < bestDistance) best = static_cast<int>(b), bestDistance = d;
  }
  return best;
}

std::vector<StageEditor::Label> StageEditor::stageLabels() const {
  if (layerNs_.empty() || !hint().isEmpty()) return {};
  const auto c = cuts();
  const int stages = static_cast<int>(c.size()) - 1;
  const double lw = layerWidth();
  const QFontMetrics fm = fontMetrics();
  // Every k-th stage (k = 1, 2, 4, ...), the smallest k whose labels leave a gap between them.
  for (int k = 1;; k *= 2) {
    std::vector<Label> labels;
    bool fits = true;
    for (int s = 0; s < stages && fits; s += k) {
      const double left = barLeft() + c[s] * lw, w = (c[s + 1] - c[s]) * lw;
      const QString full = QString("S%1 %2").arg(s).arg(durationText(stageNs(s)));
      QString text = timed_ && fm.horizontalAdvance(full) + 4 <= w ? full : QString("S%1").arg(s);
      const int tw = fm.horizontalAdvance(text);
      int x = static_cast<int>(left + (w - tw) / 2);
      x = std::clamp(x, 0, std::max(0, width() - tw));
      const QRect r(x, 0, tw, kLabelRow);
      if (!labels.empty() && labels.back().rect.right() + 6 > r.left()) fits = false;
      labels.push_back({s, r, text});
    }
    if (fits || k >= stages) return fits ? labels : std::vector<Label>{labels.front()};
  }
}

QString StageEditor::toolTipAt(QPoint pos) const {
  if (const int b = handleAt(pos); b >= 0 && pos.y() >= kLabelRow - 4)
    return QString("stage %1 | stage %2: layer %3").arg(b).arg(b + 1).arg(boundaries_[b]);
  if (!layerNs_.empty() && pos.y() >= kLabelRow && pos.x() >= barLeft() && pos.x() < barRight()) {
    const auto c = cuts();
    const int layer = std::min(static_cast<int>((pos.x() - barLeft()) / layerWidth()),
                               static_cast<int>(layerNs_.size()) - 1);
    const int s = static_cast<int>(std::upper_bound(c.begin(), c.end(), layer) - c.begin()) - 1;
    QString text = QString("stage %1: layers %2–%3, layer %4 under the pointer")
                       .arg(s)
                       .arg(c[s])
                       .arg(c[s + 1] - 1)
                       .arg(layer);
    if (timed_)
      text += QString("\nstage %1, layer %2")
                  .arg(durationText(stageNs(s)), durationText(layerNs_[layer]));
    if (!hint().isEmpty()) text += "\n" + hint();
    return text;
  }
  return summary_;
}

bool StageEditor::event(QEvent* e) {
  if (showPositionalToolTip(this, e, [this](QPoint at) { return toolTipAt(at); })) return true;
  return QWidget::event(e);
}

void StageEditor::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Window));
  const QColor fg = palette().color(QPalette::WindowText);
  if (layerNs_.empty()) {
    p.setPen(secondaryText(palette()));
    p.drawText(rect(), Qt::AlignCenter, "no layers or stages in this run");
    return;
  }
  const double lw = layerWidth();
  const double maxNs = *std::max_element(layerNs_.begin(), layerNs_.end());
  const int top = kLabelRow, h = height() - top - 6;
  // Layers: darker = more expensive (all alike when the run recorded no layer times).
  for (std::size_t l = 0; l < layerNs_.size(); ++l) {
    const double f = maxNs > 0 ? layerNs_[l] / maxNs : 0.0;
    QColor c = QColor::fromHsvF(0.58, 0.25 + 0.6 * f, 0.95 - 0.35 * f);
    p.fillRect(QRectF(barLeft() + l * lw, top, std::max(1.0, lw - 1), h), c);
  }
  p.setPen(fg);
  if (!isEnabled()) {
    // A run without a plan (an import): its stages as recorded, nothing to raise or drag.
    p.drawText(QRect(barLeft(), 0, barRight() - barLeft(), top), Qt::AlignCenter,
               fontMetrics().elidedText("stages as recorded: no plan to edit", Qt::ElideRight,
                                        barRight() - barLeft()));
  } else if (const QString why = hint(); !why.isEmpty()) {
    // Nothing can move: say why where the stage labels would be.
    p.drawText(
        QRect(barLeft(), 0, barRight() - barLeft(), top), Qt::AlignCenter,
        fontMetrics().elidedText(
            fontMetrics().horizontalAdvance(why) <= barRight() - barLeft() || missingStages_ > 0
                ? why
                : QString("one layer per stage: raise Layers"),
            Qt::ElideRight, barRight() - barLeft()));
  } else {
    for (const Label& l : stageLabels())
      p.drawText(l.rect, Qt::AlignCenter, l.text);
  }
  const bool movable = hint().isEmpty();
  const int hw = lw >= 8 ? 4 : 2;
  for (std::size_t b = 0; b < boundaries_.size(); ++b) {
    const int bi = static_cast<int>(b), x = handleX(bi);
    const bool moved = boundaries_[b] != committed_[b];
    QColor c = movable ? QColor(Qt::black) : palette().color(QPalette::Mid);
    if (bi == dragging_ || moved) c = QColor(0xD5, 0x5E, 0x00);
    const bool selected = bi == selected_ && hasFocus();
    if (selected) c = palette().color(QPalette::Highlight);
    const int w = selected ? hw + 2 : hw;
    p.fillRect(QRect(x - w / 2, top - 4, w, h + 8), c);
  }
  if (hasFocus()) {
    // Visible focus: a frame in the highlight colour (square: the same pixels at every ratio).
    const QColor hl = palette().color(QPalette::Highlight);
    p.fillRect(QRect(0, 0, width(), 1), hl);
    p.fillRect(QRect(0, height() - 1, width(), 1), hl);
    p.fillRect(QRect(0, 0, 1, height()), hl);
    p.fillRect(QRect(width() - 1, 0, 1, height()), hl);
  }
}

void StageEditor::mousePressEvent(QMouseEvent* e) {
  dragging_ = handleAt(e->pos());
  if (dragging_ >= 0) selected_ = dragging_;
  update();
}

void StageEditor::mouseMoveEvent(QMouseEvent* e) {
  if (dragging_ < 0) {
    setCursor(handleAt(e->pos()) >= 0 && hint().isEmpty() ? Qt::SplitHCursor : Qt::ArrowCursor);
    return;
  }
  // Snap to a layer, keeping every stage at least one layer wide.
  const int lo = dragging_ == 0 ? 1 : boundaries_[dragging_ - 1] + 1;
  const int hi = dragging_ + 1 < static_cast<int>(boundaries_.size())
                     ? boundaries_[dragging_ + 1] - 1
                     : static_cast<int>(layerNs_.size()) - 1;
  boundaries_[dragging_] = std::clamp(layerAtX(e->pos().x()), lo, hi);
  updateSummaryToolTip();
  update();
}

void StageEditor::mouseReleaseEvent(QMouseEvent*) {
  if (dragging_ < 0) return;
  dragging_ = -1;
  apply();  // a release where the handle could not (or did not) move starts no run
  update();
}

void StageEditor::moveSelected(int layers) {
  if (selected_ < 0 || selected_ >= static_cast<int>(boundaries_.size())) return;
  const int lo = selected_ == 0 ? 1 : boundaries_[selected_ - 1] + 1;
  const int hi = selected_ + 1 < static_cast<int>(boundaries_.size())
                     ? boundaries_[selected_ + 1] - 1
                     : static_cast<int>(layerNs_.size()) - 1;
  boundaries_[selected_] = std::clamp(boundaries_[selected_] + layers, lo, hi);
  updateSummaryToolTip();
  update();
}

void StageEditor::apply() {
  if (boundaries_ == committed_) return;
  committed_ = boundaries_;
  QStringList parts;
  for (int b : boundaries_)
    parts << QString::number(b);
  updateSummaryToolTip();
  update();
  emit boundariesChanged(parts.join(','));
}

void StageEditor::keyPressEvent(QKeyEvent* e) {
  const int count = static_cast<int>(boundaries_.size());
  const bool shift = e->modifiers() & Qt::ShiftModifier;
  switch (e->key()) {
    case Qt::Key_Left:
    case Qt::Key_Right: {
      if (count == 0) break;
      const int step = e->key() == Qt::Key_Left ? -1 : 1;
      if (shift) {
        if (selected_ < 0) selected_ = 0;
        moveSelected(step);
      } else {
        selected_ =
            selected_ < 0 ? (step > 0 ? 0 : count - 1) : std::clamp(selected_ + step, 0, count - 1);
        update();
      }
      return;
    }
    case Qt::Key_Plus:
    case Qt::Key_Equal:
    case Qt::Key_Minus:
      if (count == 0) break;
      if (selected_ < 0) selected_ = 0;
      moveSelected(e->key() == Qt::Key_Minus ? -1 : 1);
      return;
    case Qt::Key_Return:
    case Qt::Key_Enter:
      if (!hasPendingEdit()) break;
      apply();
      return;
    case Qt::Key_Escape:
      if (!hasPendingEdit()) break;  // then Escape is the window's
      boundaries_ = committed_;
      updateSummaryToolTip();
      update();
      return;
    default:
      break;
  }
  QWidget::keyPressEvent(e);
}

void StageEditor::focusInEvent(QFocusEvent* e) {
  if (selected_ < 0 && !boundaries_.empty()) selected_ = 0;
  update();
  QWidget::focusInEvent(e);
}

void StageEditor::focusOutEvent(QFocusEvent* e) {
  update();
  QWidget::focusOutEvent(e);
}

}  // namespace ps::ui
