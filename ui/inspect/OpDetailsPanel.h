#pragma once
// Details of the op selected in the timeline, as Nsight Systems' and Perfetto's panels give them:
// kind, original name, rank, stage, micro-batch, step, start, end, duration; bytes, peer and
// achieved bandwidth for transfers; and what it waited for and what waits for it
// (trace/analysis/OpRelations.h) as links that centre the timeline on them.

#include <QPointer>
#include <QWidget>

#include "trace/analysis/OpRef.h"

class QTextBrowser;

namespace ps::trace {
struct RunTrace;
}

namespace ps::ui {

class TimelineView;

class OpDetailsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit OpDetailsPanel(QWidget* parent = nullptr);

  // Follows the timeline's selection; a link click centres the timeline on that op.
  void setTimeline(TimelineView* timeline);
  // Shows `op` of `run` (none: the "No op selected" note).
  void showOp(const trace::RunTrace* run, const trace::OpRef& op);

  // Dependency links listed per direction before "… and N more".
  static constexpr int kMaxLinks = 12;

 signals:
  // A dependency link was followed (after the timeline was centred on it).
  void opActivated(ps::trace::OpRef op);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void followSelection();
  void activate(const QString& link);

  QPointer<TimelineView> timeline_;
  QTextBrowser* text_;
  const trace::RunTrace* run_ = nullptr;
  trace::OpRef op_;
};

}  // namespace ps::ui
