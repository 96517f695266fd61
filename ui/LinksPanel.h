#pragma once
// The Links dock: the sender × receiver matrix beside the per-link table of the selected run.

#include <QSplitter>

#include <memory>

namespace ps::ui {

struct LoadedRun;
class LinkMatrixView;
class LinkTableModel;

class LinksPanel : public QSplitter {
  Q_OBJECT
 public:
  explicit LinksPanel(QWidget* parent = nullptr);
  void showRun(const std::shared_ptr<const LoadedRun>& run);

 private:
  LinkMatrixView* matrix_;
  LinkTableModel* table_;
};

}  // namespace ps::ui
