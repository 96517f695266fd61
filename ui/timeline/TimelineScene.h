#pragma once
// The timeline's geometry, a pure builder (DESIGN §7.3-7.4): the run (TimelineData), its tracks'
// layout, the visible time range and the size in pixels in; out the primitives a painter walks:
// the tracks on screen, a box per op or per fold of ops under a pixel (from per-pixel lane
// queries; nested imported ranges get depth rows of their own), the background cut around the
// compute rows' boxes so each pixel is written about once, the plain strips between compute
// bands, and the axis ticks with their grid columns. Hit tests (the box at a point, an op's box)
// read the same geometry. QtGui value types only, no widget: tested on its own (TimelineScene*).

#include <QPoint>
#include <QRect>

#include <cstdint>
#include <vector>

#include "ui/timeline/StripComposer.h"
#include "ui/timeline/TimeMapping.h"
#include "ui/timeline/TimelineData.h"
#include "ui/timeline/TrackLayout.h"

namespace ps::ui {

// What the scene shows: `range` over a `width` x `height` px view, the unpinned tracks scrolled
// up by `offset` px.
struct SceneFrame {
  TimeRange range;
  int width = 0, height = 0;
  int offset = 0;
  // The Teach replay's cutoff: ops starting after it are not drawn (nor have a rect), and the
  // step shading stops there, so the future is blank.
  std::int64_t revealUntil = trace::kTimeMax;
};

// One op, or `count` ops folded into one pixel, of a row.
struct SceneBox {
  QRect rect;   // for hit tests
  QRect drawn;  // less the 1-px seam between neighbours, clipped to the plot and the track
  trace::OpKind kind;
  std::uint8_t chunk = 0, replica = 0;  // a shade per model chunk, a hatch on replica 1
  bool labelled = false;                // a compute row of an expanded track: room for a label
  int rank;
  trace::Lane lane;              // of the op (a depth row holds Compute and Other ops)
  const trace::OpColumns* cols;  // the lane the box was queried from
  std::size_t first, count;      // in `cols`
  std::size_t op;                // the single op's index in `lane` (count == 1)
};

struct SceneGround {
  QRect rect;
  Ground ground;
};

struct SceneTick {
  std::int64_t time;
  int x;
};

class TimelineScene {
 public:
  static constexpr int kGutter = 96;      // rank labels
  static constexpr int kAxis = 26;        // time axis
  static constexpr int kRightMargin = 8;  // the plot stops short of the right edge

  // The geometry of `data` shown in `frame`, tracks placed by `layout`.
  void build(const TimelineData& data, const TrackLayout& layout, const SceneFrame& frame);
  // The tracks `layout` places in `frame` (what build() keeps as tracks()).
  static std::vector<Track> placeTracks(const TrackLayout& layout, const SceneFrame& frame);

  const SceneFrame& frame() const { return frame_; }
  double plotWidth() const { return std::max(1, frame_.width - kGutter - kRightMargin); }
  QRect plotRect() const {
    return QRect(kGutter, kAxis, frame_.width - kGutter, frame_.height - kAxis);
  }
  // x in the view of time t (unclamped).
  double xOf(std::int64_t t) const { return kGutter + timeToPx(frame_.range, plotWidth(), t); }

  const std::vector<Track>& tracks() const { return tracks_; }
  const std::vector<SceneBox>& boxes() const { return boxes_; }
  const std::vector<SceneGround>& ground() const { return ground_; }
  const std::vector<QRect>& plainStrips() const { return plainStrips_; }
  const std::vector<SceneTick>& ticks() const { return ticks_; }
  std::int64_t tickStep() const { return tickStep_; }
  // Bumped by every build (for caches keyed on the geometry).
  std::uint64_t generation() const { return generation_; }

  // The box under `pos`, the track at height y, `rank`'s track on screen; null when none.
  const SceneBox* boxAt(QPoint pos) const;
  const Track* trackAt(int y) const;
  const Track* trackOf(int rank) const;
  // `rank`'s compute band as far as it is on screen; empty when scrolled out.
  QRect trackRect(int rank) const;
  // Where `op`'s box is (not folded), empty when it is not on screen.
  QRect opRect(const TimelineData& data, const TimelineOp& op) const;

 private:
  void addTicks();
  void addTrack(const TimelineData& data, const Track& track, const std::vector<Span>& shaded);
  struct Row {
    int y, h;
    trace::Lane lane;
    const trace::OpColumns* cols;
    const trace::LaneIndex* index;
    int depthRow;
  };
  void addRow(const TimelineData& data, const Track& track, const Row& row,
              std::vector<Span>* covered);
  void addPlainStrips();

  SceneFrame frame_;
  std::vector<Track> tracks_;
  std::vector<SceneBox> boxes_;
  std::vector<SceneGround> ground_;
  std::vector<QRect> plainStrips_;
  std::vector<SceneTick> ticks_;
  std::vector<int> gridX_;
  std::int64_t tickStep_ = 1;
  std::uint64_t generation_ = 0;
};

}  // namespace ps::ui
