#include "ui/PlanPanel.h"

// The panel's "More" section: the knobs most plans leave at their defaults, and the one-line
// summary beside the toggle of those that are not.

#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStringList>
#include <QToolButton>
#include <tuple>

#include "ui/PlanPanelTips.h"
#include "ui/PlanPanelWidgets.h"

namespace ps::ui {
using panelwidgets::combo;
using panelwidgets::dspin;
using panelwidgets::note;
using panelwidgets::spin;

void PlanPanel::buildMore() {
  moreToggle_ = new QToolButton(this);
  moreToggle_->setObjectName("moreToggle");
  moreToggle_->setText("More");
  moreToggle_->setAutoRaise(true);
  moreToggle_->setArrowType(Qt::RightArrow);
  moreToggle_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  moreToggle_->setToolTip(tips::kMore);
  moreSummary_ = note(this, "moreSummary");
  moreSummary_->setToolTip(tips::kMore);
  more_ = new QWidget(this);
  more_->setObjectName("moreGroup");
  auto* form = new QFormLayout(more_);
  form->setContentsMargins(12, 0, 0, 0);
  form->setVerticalSpacing(3);
  latency_ = dspin(more_, "latencySpin", 1e6, 2, " µs", tips::kLinkLatency);
  form->addRow("Link latency", latency_);
  actMb_ = dspin(more_, "actMbSpin", 1e6, 3, " MB", tips::kActMb);
  form->addRow("Activations / layer", actMb_);
  auto* fbw = new QHBoxLayout;
  fbw->setSpacing(2);
  fwd_ = dspin(more_, "fwdSpin", 1e9, 2, "", tips::kFwdUs);
  bwd_ = dspin(more_, "bwdSpin", 1e9, 2, "", tips::kBwdUs);
  wgrad_ = dspin(more_, "wgradSpin", 1e9, 2, "", tips::kWgradUs);
  for (QDoubleSpinBox* s : {fwd_, bwd_, wgrad_}) {
    s->setButtonSymbols(QAbstractSpinBox::NoButtons);  // three fit in a narrow dock
    fbw->addWidget(s);
  }
  form->addRow("F / B / W µs", fbw);
  sync_ = combo(more_, "optimizerSyncCombo", {"barrier", "none"}, tips::kOptimizerSync);
  form->addRow("Optimizer sync", sync_);
  recompute_ = new QCheckBox("Recompute activations", more_);
  recompute_->setObjectName("recomputeCheck");
  recompute_->setToolTip(tips::kRecompute);
  form->addRow(recompute_);
  splitBackward_ = new QCheckBox("Split backward (I now, W in bubbles)", more_);
  splitBackward_->setObjectName("splitBackwardCheck");
  splitBackward_->setToolTip(tips::kSplitBackward);
  form->addRow(splitBackward_);
  maxDeferredW_ = spin(more_, "maxDeferredWSpin", 0, 4096, tips::kMaxDeferredW);
  maxDeferredW_->setSpecialValueText("no bound");
  form->addRow("Deferred W at most", maxDeferredW_);
  forwardOnly_ = new QCheckBox("Forward only (inference)", more_);
  forwardOnly_->setObjectName("forwardOnlyCheck");
  forwardOnly_->setToolTip(tips::kForwardOnly);
  form->addRow(forwardOnly_);
  balanceActivations_ = new QCheckBox("Balance activations (BPipe)", more_);
  balanceActivations_->setObjectName("balanceActivationsCheck");
  balanceActivations_->setToolTip(tips::kBalanceActivations);
  form->addRow(balanceActivations_);
  rankSpeed_ = new QLineEdit(more_);
  rankSpeed_->setObjectName("rankSpeedEdit");
  rankSpeed_->setPlaceholderText("e.g. 1,1,2,1");
  rankSpeed_->setToolTip(tips::kRankSpeed);
  form->addRow("Rank speeds", rankSpeed_);
  rankMemory_ = new QLineEdit(more_);
  rankMemory_->setObjectName("rankMemoryEdit");
  rankMemory_->setPlaceholderText("GiB, e.g. 80,80,40,40");
  rankMemory_->setToolTip(tips::kRankMemory);
  form->addRow("Rank memory", rankMemory_);
  dataParallel_ = spin(more_, "dataParallelSpin", 1, 64, tips::kDataParallel);
  form->addRow("Data parallel", dataParallel_);
  topology_ = new QLineEdit(more_);
  topology_->setObjectName("topologyEdit");
  topology_->setPlaceholderText("nodes x devices, e.g. 2x4");
  topology_->setToolTip(tips::kTopology);
  form->addRow("Topology", topology_);
  auto* inter = new QHBoxLayout;
  inter->setSpacing(2);
  interGbps_ = dspin(more_, "interGbpsSpin", 1e6, 1, " Gb/s", tips::kInterNode);
  interLatency_ = dspin(more_, "interLatencySpin", 1e6, 2, " µs", tips::kInterNode);
  for (QDoubleSpinBox* s : {interGbps_, interLatency_}) {
    s->setButtonSymbols(QAbstractSpinBox::NoButtons);
    inter->addWidget(s);
  }
  form->addRow("Inter-node", inter);
  mapping_ = new QLineEdit(more_);
  mapping_->setObjectName("mappingEdit");
  mapping_->setPlaceholderText("rank, auto or 0,4,1,5,...");
  mapping_->setToolTip(tips::kMapping);
  form->addRow("Mapping", mapping_);
  auto* partition = new QHBoxLayout;
  partition->setSpacing(2);
  partition_ = combo(more_, "partitionCombo", {"time", "memory"}, tips::kPartition);
  timeSlack_ = dspin(more_, "timeSlackSpin", 10, 2, "", tips::kPartition);
  timeSlack_->setPrefix("slack ");
  partition->addWidget(partition_);
  partition->addWidget(timeSlack_);
  form->addRow("Balance", partition);
  auto* frozen = new QHBoxLayout;
  frozen->setSpacing(2);
  frozenUs_ = dspin(more_, "frozenUsSpin", 1e9, 2, " µs", tips::kFrozen);
  frozenUs_->setSpecialValueText("none");
  fill_ = combo(more_, "fillCombo", {"bubbles", "before"}, tips::kFrozen);
  frozen->addWidget(frozenUs_);
  frozen->addWidget(fill_);
  form->addRow("Frozen forward", frozen);
  stageGraph_ = new QLineEdit(more_);
  stageGraph_->setObjectName("stageGraphEdit");
  stageGraph_->setPlaceholderText("chain; or edges 0>1,1>4,2>3,3>4");
  stageGraph_->setToolTip(tips::kStageGraph);
  form->addRow("Stage graph", stageGraph_);
  for (auto [label, spin, mode, spinName, modeName, tip] :
       {std::tuple{"All-to-all", &a2aMb_, &a2a_, "a2aMbSpin", "a2aCombo", tips::kAllToAll},
        std::tuple{"Embedding fetch", &fetchMb_, &fetch_, "fetchMbSpin", "fetchCombo",
                   tips::kEmbeddingFetch}}) {
    auto* row = new QHBoxLayout;
    row->setSpacing(2);
    *spin = dspin(more_, spinName, 1e6, 1, " MiB", tip);
    (*spin)->setSpecialValueText("none");
    *mode = combo(more_, modeName, {"overlap", "serial"}, tip);
    row->addWidget(*spin);
    row->addWidget(*mode);
    form->addRow(label, row);
  }
  weightVersions_ =
      combo(more_, "weightVersionsCombo", {"stash", "latest", "predict"}, tips::kWeightVersions);
  form->addRow("Weight versions", weightVersions_);
  tokenSlices_ = new QLineEdit(more_);
  tokenSlices_->setObjectName("tokenSlicesEdit");
  tokenSlices_->setPlaceholderText("none; K, auto or 1024,640,384");
  tokenSlices_->setToolTip(tips::kTokenSlices);
  form->addRow("Token slices", tokenSlices_);
  auto* sequences = new QHBoxLayout;
  sequences->setSpacing(2);
  seqLengths_ = new QLineEdit(more_);
  seqLengths_->setObjectName("seqLengthsEdit");
  seqLengths_->setPlaceholderText("none; 512,96,2048 or @file");
  seqLengths_->setToolTip(tips::kSeqLengths);
  microbatching_ = combo(more_, "microbatchingCombo", {"dp", "packed"}, tips::kSeqLengths);
  sequences->addWidget(seqLengths_, 1);
  sequences->addWidget(microbatching_);
  form->addRow("Sequences", sequences);
  optimizer_ = combo(more_, "optimizerCombo", {"adam", "sgd"}, tips::kOptimizer);
  form->addRow("Optimizer", optimizer_);
  // Spin boxes size themselves for their largest value ("1000000000.00 µs"): two of them, or one
  // beside a combo, made the open section wider than the dock and pushed Run out of sight.
  for (QAbstractSpinBox* spin : more_->findChildren<QAbstractSpinBox*>())
    spin->setMinimumWidth(spin->fontMetrics().horizontalAdvance("00000.0") + 24);
  for (QComboBox* c : more_->findChildren<QComboBox*>())
    c->setMinimumContentsLength(4);
  more_->setVisible(false);
  // Not a checkable button: a checked tool button draws sunken, which reads as "pressed".
  connect(moreToggle_, &QToolButton::clicked, this, [this] { setMoreOpen(!moreOpen()); });
}

QString PlanPanel::moreSummary() const {
  QStringList parts;
  if (latency_->value() > 0) parts << QString("latency %1 µs").arg(latency_->value());
  if (!shown_.spec.costsFile.empty())
    parts << "costs from " + QString::fromStdString(shown_.spec.costsFile).section('/', -1);
  else if (shown_.spec.costs)
    parts << "the run's own costs";
  else {
    if (actMb_->value() != 1) parts << QString("act %1 MB").arg(actMb_->value());
    if (fwd_->value() != 100 || bwd_->value() != 200 || wgrad_->value() != 100)
      parts << QString("F/B/W %1/%2/%3 µs")
                   .arg(fwd_->value())
                   .arg(bwd_->value())
                   .arg(wgrad_->value());
  }
  if (sync_->currentIndex() != 0) parts << "sync " + sync_->currentText();
  if (recompute_->isChecked()) parts << "recompute";
  if (splitBackward_->isChecked())
    parts << (maxDeferredW_->value() > 0
                  ? QString("split backward (W ≤ %1)").arg(maxDeferredW_->value())
                  : QString("split backward"));
  if (forwardOnly_->isChecked()) parts << "forward only";
  if (balanceActivations_->isChecked()) parts << "balanced activations";
  if (!rankSpeed_->text().trimmed().isEmpty()) parts << "speeds " + rankSpeed_->text().trimmed();
  if (!rankMemory_->text().trimmed().isEmpty())
    parts << "memory " + rankMemory_->text().trimmed() + " GiB";
  if (dataParallel_->value() > 1) parts << QString("dp %1").arg(dataParallel_->value());
  if (!topology_->text().trimmed().isEmpty()) {
    QString nodes = "nodes " + topology_->text().trimmed();
    if (interGbps_->value() > 0) nodes += QString(" at %1 Gb/s").arg(interGbps_->value());
    parts << nodes;
  }
  if (!mapping_->text().trimmed().isEmpty()) parts << "mapping " + mapping_->text().trimmed();
  if (frozenUs_->value() > 0)
    parts << QString("frozen %1 µs %2").arg(frozenUs_->value()).arg(fill_->currentText());
  if (!stageGraph_->text().trimmed().isEmpty())
    parts << "stage graph " + stageGraph_->text().trimmed();
  if (a2aMb_->value() > 0)
    parts << QString("all-to-all %1 MiB %2").arg(a2aMb_->value()).arg(a2a_->currentText());
  if (fetchMb_->value() > 0)
    parts << QString("fetch %1 MiB %2").arg(fetchMb_->value()).arg(fetch_->currentText());
  if (weightVersions_->currentIndex() != 0) parts << "weights " + weightVersions_->currentText();
  if (!tokenSlices_->text().trimmed().isEmpty())
    parts << "token slices " + tokenSlices_->text().trimmed();
  if (!seqLengths_->text().trimmed().isEmpty())
    parts << QString("%1 sequences, %2")
                 .arg(seqLengths_->text().count(',') + 1)
                 .arg(microbatching_->currentText());
  if (partition_->currentIndex() == 1)
    parts << QString("balance memory (slack %1)").arg(timeSlack_->value());
  if (trainsModel() && optimizer_->currentIndex() != 0) parts << optimizer_->currentText();
  return parts.isEmpty() ? QString("defaults") : parts.join(", ");
}

}  // namespace ps::ui
