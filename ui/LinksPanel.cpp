#include "ui/LinksPanel.h"

#include <QHeaderView>
#include <QTableView>

#include "trace/analysis/WideTime.h"
#include "ui/LinkMatrixView.h"
#include "ui/LinkTableModel.h"
#include "ui/LoadedRun.h"

namespace ps::ui {

LinksPanel::LinksPanel(QWidget* parent) : QSplitter(Qt::Horizontal, parent) {
  setObjectName("linksPanel");
  matrix_ = new LinkMatrixView(this);
  table_ = new LinkTableModel(this);
  auto* view = new QTableView(this);
  view->setObjectName("linkTable");
  view->setModel(table_);
  // The figures as wide as they are; the transfers in words take the rest (busy % stretched
  // over the dock, far from its link).
  view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view->horizontalHeader()->setStretchLastSection(true);
  view->verticalHeader()->hide();
  addWidget(matrix_);
  addWidget(view);
  setStretchFactor(1, 1);
}

void LinksPanel::showRun(const std::shared_ptr<const LoadedRun>& run) {
  if (!run) return;
  const auto [first, last] = run->trace->timeExtent();
  matrix_->setLinks(run->analysis.links, static_cast<int>(run->trace->ranks.size()),
                    trace::satSub(last, first));
  table_->setAnalysis(run->analysis);
}

}  // namespace ps::ui
