#pragma once
// The timeline's background painted once per pixel (DESIGN §7.3-7.4): for one horizontal strip,
// the spans its boxes leave uncovered, cut where the step shading starts or stops and around the
// 1-px grid columns, each with what to paint there. Filling under the boxes as well would write
// most of the plot twice. Pure integer maths; spans are half-open pixel ranges [left, right).

#include <cstdint>
#include <vector>

namespace ps::ui {

struct Span {
  int left = 0;
  int right = 0;
  bool operator==(const Span&) const = default;
};

enum class Ground : std::uint8_t { Plain, Shaded, GridOnPlain, GridOnShaded };

struct GroundPiece {
  Span span;
  Ground ground = Ground::Plain;
  bool operator==(const GroundPiece&) const = default;
};

// Appends to `out` the pieces of [left, right) that no span of `covered` touches. `covered` is
// sorted by left and may overlap or reach outside [left, right); `shaded` is sorted and disjoint;
// `grid` holds sorted x of 1-px columns. Touching pieces differ in ground, except neighbouring
// grid columns (one piece each).
void composeStrip(int left, int right, const std::vector<Span>& covered,
                  const std::vector<Span>& shaded, const std::vector<int>& grid,
                  std::vector<GroundPiece>& out);

// The union of `spans` (any order, empty ones dropped), sorted and disjoint.
std::vector<Span> mergeSpans(std::vector<Span> spans);

}  // namespace ps::ui
