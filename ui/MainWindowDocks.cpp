// MainWindow's bottom docks (the run's stats, links, comparison, details, teaching, exploration)
// and the one notification they follow: currentRunChanged, passed on from the RunSession whenever
// the run the window shows changes (selected, compared as A, grown live, explained). A dock that
// shows the current run is created here and subscribes here (docs/ARCHITECTURE.md).

#include <QDockWidget>
#include <QFontDatabase>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTableView>

#include "ui/CompareModel.h"
#include "ui/ExplorePanel.h"
#include "ui/LinksPanel.h"
#include "ui/MainWindow.h"
#include "ui/PlanDock.h"
#include "ui/PlanPanel.h"
#include "ui/StatsPanel.h"
#include "ui/TeachPanel.h"
#include "ui/TimelineArea.h"
#include "ui/inspect/OpDetailsPanel.h"

namespace ps::ui {

void MainWindow::buildBottomDocks() {
  stats_ = new StatsPanel(this);
  statsDock_ = addDock("Stats", "statsDock", stats_, Qt::BottomDockWidgetArea);
  links_ = new LinksPanel(this);
  linksDock_ = addDock("Links", "linkDock", links_, Qt::BottomDockWidgetArea);
  compare_ = new CompareModel(this);
  auto* compareView = new QTableView(this);
  compareView->setObjectName("compareTable");
  compareView->setModel(compare_);
  compareView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  compareView->verticalHeader()->hide();
  // Under the totals, the two runs op by op (RunSession::showOpDiff).
  auto* compareOps = new QPlainTextEdit(this);
  compareOps->setObjectName("compareOpsText");
  compareOps->setReadOnly(true);
  compareOps->setLineWrapMode(QPlainTextEdit::NoWrap);
  compareOps->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  auto* compareSplit = new QSplitter(Qt::Horizontal, this);
  compareSplit->addWidget(compareView);
  compareSplit->addWidget(compareOps);
  compareSplit->setSizes({560, 640});  // the table's five columns, then the ops
  compareDock_ = addDock("Compare", "compareDock", compareSplit, Qt::BottomDockWidgetArea);
  details_ = new OpDetailsPanel(this);
  details_->setTimeline(area_->timeline());
  detailsDock_ = addDock("Details", "detailsDock", details_, Qt::BottomDockWidgetArea);
  teach_ = new TeachPanel(area_->timeline(), this);
  teachDock_ = addDock("Teach", "teachDock", teach_, Qt::BottomDockWidgetArea);
  explore_ = new ExplorePanel(this);
  exploreDock_ = addDock("Explore", "exploreDock", explore_, Qt::BottomDockWidgetArea);
  // The sweep starts from the plan on screen; a chosen candidate is shown and simulated.
  connect(explore_, &ExplorePanel::exploreRequested, this,
          [this] { explore_->explore(plan_->panel()->request()); });
  connect(explore_, &ExplorePanel::synthRequested, this,
          [this] { explore_->synthesise(plan_->panel()->request()); });
  connect(explore_, &ExplorePanel::candidateChosen, this,
          [this](const runtime::RunPlanRequest& request) {
            plan_->panel()->showRequest(request);
            runRequest(request);
          });
  tabifyDockWidget(statsDock_, linksDock_);
  tabifyDockWidget(statsDock_, teachDock_);
  tabifyDockWidget(statsDock_, compareDock_);
  tabifyDockWidget(statsDock_, detailsDock_);
  tabifyDockWidget(statsDock_, exploreDock_);
  compareDock_->hide();
  statsDock_->raise();
  // Every dock that shows the current run follows it from here: a new one is one line.
  connect(this, &MainWindow::currentRunChanged, stats_, &StatsPanel::showRun);
  connect(this, &MainWindow::currentRunChanged, links_, &LinksPanel::showRun);
  connect(this, &MainWindow::currentRunChanged, teach_, &TeachPanel::showRun);
  connect(this, &MainWindow::currentRunChanged, plan_, &PlanDock::showRun);
}

}  // namespace ps::ui
