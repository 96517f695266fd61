// RunSession's op-by-op comparison (issue 36 §4), beside the Compare table.

#include <QDockWidget>
#include <QPlainTextEdit>

#include "trace/analysis/OpDiff.h"
#include "ui/LoadedRun.h"
#include "ui/RunSession.h"
#include "ui/TimelineArea.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {

// Compare, op by op (issue 36 §4): B's ops tinted by how far they moved against A, and the
// bubble's change by cause with the largest moves under the table. Both runs explained (so not
// past kExplainMaxOps): the matching sorts both runs' ops.
void RunSession::showOpDiff() {
  auto* text = v_.compareDock->findChild<QPlainTextEdit*>("compareOpsText");
  if (!current_->why || !compared_->why) {
    if (text) text->setPlainText("Op by op: not for runs this large (they are not explained).");
    return;
  }
  const trace::OpDiff diff = trace::diffOps(*current_->trace, current_->why.get(),
                                            *compared_->trace, compared_->why.get());
  v_.area->compareTimeline()->setOpMoves(
      std::make_shared<const std::vector<std::vector<std::int64_t>>>(diff.deltaStartOfB));
  if (text)
    text->setPlainText(QString::fromStdString(trace::opDiffText(diff, 10)).trimmed() +
                       "\n\nOn B's timeline a bar along the top of each op that moved: dark "
                       "where it starts later than in A, light where earlier.");
}

}  // namespace ps::ui
