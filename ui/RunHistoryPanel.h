#pragma once
// The Run history dock: every run of the open file, newest last, labelled so that runs can be
// told apart (the knobs in which same-named runs differ; imported runs by their files' base
// names), the whole config in a tooltip. One run selected = the primary run every pane shows;
// two selected = a comparison (the one selected first is A, the ctrl+clicked one B).

#include <QList>
#include <QString>
#include <QWidget>

#include <map>
#include <optional>
#include <vector>

#include "trace/TraceRecords.h"

class QListWidget;

namespace ps::ui {

class RunHistoryPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunHistoryPanel(QWidget* parent = nullptr);

  // Lists `runs` (in file order) and makes `current` (or the last run) the current one, without
  // emitting selectionChanged.
  void setRuns(const std::vector<trace::RunInfo>& runs, qint64 current = -1);
  // Replaces the list with `runs` as the file holds them now (another process appended, finished
  // or deleted runs), keeping the current run and the selection where they still exist, without
  // emitting selectionChanged. False when nothing the list shows changed. When the current run
  // is gone the last run becomes current (check currentRun()).
  bool updateRuns(const std::vector<trace::RunInfo>& runs);
  // Makes `id` the only selected run, without emitting selectionChanged.
  void selectRun(qint64 id);
  // Makes `a` current and selects `a` and `b` (a comparison), without emitting selectionChanged.
  void selectPair(qint64 a, qint64 b);
  qint64 currentRun() const;
  // The selected runs in the order they were selected (a click, then a ctrl+click: the clicked
  // run first).
  QList<qint64> selectedRuns() const;
  int count() const;
  // The latest complete run whose config says it was fitted from run `origin` (fit, or a
  // what-if of the fitted plan), when the file has one.
  std::optional<qint64> lastFittedFrom(qint64 origin) const;
  const trace::RunInfo* info(qint64 id) const;
  // A run the window holds in memory that the file does not have yet, or not complete: listed
  // (after the file's runs when the file has no row for `id`) with `state` ("saving", "not saved:
  // why") in place of its file status, until dropUnsaved. Keeps the current run and selection.
  void setUnsaved(qint64 id, const trace::RunInfo& info, const QString& state);
  void dropUnsaved(qint64 id);
  void clearUnsaved();  // another file was opened

 signals:
  // The selection or the current run changed (coalesced: one signal per user action).
  void selectionChanged();

 private:
  struct Unsaved {
    trace::RunInfo info;
    QString state;
  };
  void fill(const std::vector<trace::RunInfo>& runs);
  // fill() again, keeping the current run, the selection and the scroll position.
  void refill(const std::vector<trace::RunInfo>& runs);
  // Keeps selectionOrder_ to the selected runs: those no longer selected leave it, newly selected
  // ones join at its end.
  void trackSelectionOrder();

  QListWidget* list_;
  std::vector<trace::RunInfo> runs_;
  std::map<qint64, Unsaved> unsaved_;
  bool pending_ = false;
  QList<qint64> selectionOrder_;
};

}  // namespace ps::ui
