// The Explore dock's Synthesise (issue 36 §1): a schedule searched under the plan's memory caps,
// shown beside the generators under the same caps, and loaded into the Plan panel from the torch
// CSV it is saved as.

#include <QDir>
#include <QPushButton>
#include <QStandardPaths>
#include <QTableWidget>

#include <algorithm>
#include <limits>

#include "runtime/plan/TorchCsv.h"
#include "runtime/run/Explore.h"
#include "runtime/synth/SynthOutput.h"
#include "trace/Units.h"
#include "ui/ExplorePanel.h"
#include "ui/ParetoPlot.h"
#include "ui/PlanKnobWidgets.h"
#include "ui/QtText.h"

namespace ps::ui {
namespace {

using runtime::synth::SynthBaseline;
using runtime::synth::SynthResult;

std::int64_t largest(const std::vector<std::int64_t>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

std::string cutText(const runtime::Plan& plan) {
  return runtime::boundariesText(runtime::boundariesOf(plan));
}

// The app's folder for synthesised schedules: the Plan panel reads a schedule from a file.
std::string saveCsv(const SynthResult& s, QString& error) {
  const QString dir =
      QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/synthesised";
  if (!QDir().mkpath(dir)) {
    error = "could not create " + dir;
    return {};
  }
  const auto& plan = s.built->plan;
  const std::string path = (dir + QString("/synth-p%1-m%2-v%3.csv")
                                      .arg(plan.numRanks)
                                      .arg(plan.numMicrobatches())
                                      .arg(plan.chunks))
                               .toStdString();
  auto written = runtime::writeTorchCsvFile(path, runtime::synth::synthCsvText(*s.built, false));
  if (!written) {
    error = toQString(written.error());
    return {};
  }
  return path;
}

QString gainText(const SynthResult& s) {
  return toQString(runtime::synth::gainSummary(s));
}

}  // namespace

void ExplorePanel::synthesise(const runtime::RunPlanRequest& base) {
  jobs_.cancel();
  base_ = base;
  base_.backend = runtime::Backend::Sim;
  synthRequest_ = {};
  synthRequest_.spec = base.spec;
  synthRequest_.spec.steps = 1;
  synthRequest_.spec.scheduleFile.clear();  // a schedule shown from a file: its shape, anew
  setBusy("Synthesising a schedule under the plan's memory caps (up to 10 s)…");
  jobs_.start([this, request = synthRequest_](const JobTracker::Job& job) {
    auto result = std::make_shared<Result<SynthResult>>(
        runtime::synth::synthesise(request, {}, job.cancelFlag()));
    job.finish([this, result] { showSynth(std::move(*result)); });
  });
}

void ExplorePanel::showSynth(Result<SynthResult> result) {
  button_->setEnabled(true);
  synthButton_->setEnabled(true);
  result_.reset();
  synth_.reset();
  table_->clearSpans();
  table_->setRowCount(0);
  if (!result) {
    status_->setText(inPanelWords(result.error()));
    plot_->setPoints({});
    emit finished();
    return;
  }
  synth_ = std::move(*result);
  QString error;
  synthCsv_ = saveCsv(*synth_, error);
  const auto& plan = synth_->built->plan;
  const std::int64_t cap = *std::min_element(synth_->capPerRank.begin(), synth_->capPerRank.end());
  const bool capped = cap != std::numeric_limits<std::int64_t>::max();
  status_->setText(
      QString("Synthesised p=%1 m=%2 v=%3: step %4, peak %5%6; %7 (%8 schedules searched in "
              "%9 s). %10")
          .arg(plan.numRanks)
          .arg(plan.numMicrobatches())
          .arg(plan.chunks)
          .arg(toQString(trace::formatDuration(synth_->stepNs)))
          .arg(toQString(trace::formatBytes(largest(synth_->peakPerRank))))
          .arg(capped ? " under a cap of " + toQString(trace::formatBytes(cap))
                      : QString(", no cap"))
          .arg(gainText(*synth_))
          .arg(synth_->passes)
          .arg(synth_->seconds, 0, 'f', 2)
          .arg(synthCsv_.empty() ? "Not saved: " + error
                                 : "Click its row to load it (" + toQString(synthCsv_) + ")."));
  std::vector<ParetoPoint> points;
  const double m = std::max(1, plan.numMicrobatches());
  points.push_back(
      {static_cast<double>(largest(synth_->peakPerRank)), static_cast<double>(synth_->stepNs) / m,
       "synth (searched under the cap)\nstep " + toQString(trace::formatDuration(synth_->stepNs)),
       true});
  for (const SynthBaseline& b : synth_->baselines)
    if (b.stepNs)
      points.push_back(
          {static_cast<double>(largest(b.peakPerRank)), static_cast<double>(*b.stepNs) / m,
           toQString(b.schedule) + "\nstep " + toQString(trace::formatDuration(*b.stepNs))});
  plot_->setPoints(std::move(points),
                   capped ? std::optional<double>(static_cast<double>(cap)) : std::nullopt);
  fillSynthTable(*synth_);
  emit finished();
}

void ExplorePanel::fillSynthTable(const SynthResult& s) {
  const auto& plan = s.built->plan;
  const double m = plan.numMicrobatches();
  const QString cut = toQString(cutText(plan));
  auto row = [&](int r, const QString& name, std::optional<std::int64_t> step, std::int64_t peak,
                 const QString& note) {
    const QStringList cells{name,
                            "1",
                            QString::number(plan.numMicrobatches()),
                            QString::number(plan.chunks),
                            cut,
                            step ? toQString(trace::formatDuration(*step)) : QString("–"),
                            step ? QString::number(m * 1e9 / *step, 'f', 1) : QString("–"),
                            "–",
                            step ? toQString(trace::formatBytes(peak)) : QString("–"),
                            note};
    for (int col = 0; col < cells.size(); ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      if (!step) item->setFlags(Qt::NoItemFlags);  // refused: greyed, nothing to load
      item->setToolTip(note);
      table_->setItem(r, col, item);
    }
  };
  table_->setRowCount(static_cast<int>(1 + s.baselines.size()));
  row(0, "synth", s.stepNs, largest(s.peakPerRank),
      "synthesised: " + gainText(s) + " (from " + toQString(s.startedFrom) + ")");
  for (std::size_t k = 0; k < s.baselines.size(); ++k) {
    const SynthBaseline& b = s.baselines[k];
    row(static_cast<int>(k + 1), toQString(b.schedule), b.stepNs, largest(b.peakPerRank),
        b.stepNs ? QString() : "refused: " + inPanelWords(b.refused));
  }
}

void ExplorePanel::chooseSynth(int row) {
  if (!synth_ || row < 0 || row > static_cast<int>(synth_->baselines.size())) return;
  runtime::RunPlanRequest request = base_;
  request.name.clear();
  request.configJson.clear();
  if (row == 0) {
    if (synthCsv_.empty()) return;
    request.spec = runtime::synth::replaySpec(synthRequest_, *synth_, synthCsv_);
    const auto& plan = synth_->built->plan;
    request.name =
        QString("synth p=%1 m=%2").arg(plan.numRanks).arg(plan.numMicrobatches()).toStdString();
  } else {
    const SynthBaseline& b = synth_->baselines[static_cast<std::size_t>(row - 1)];
    if (!b.stepNs) return;
    request.spec = synthRequest_.spec;
    request.spec.schedule = b.schedule;
    request.spec.splitBackward = false;
    request.spec.boundaries = cutText(synth_->built->plan);
  }
  plot_->setSelected(row == 0 ? 0 : -1);
  table_->selectRow(row);
  emit candidateChosen(request);
}

}  // namespace ps::ui
