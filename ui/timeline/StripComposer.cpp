#include "ui/timeline/StripComposer.h"

#include <algorithm>

namespace ps::ui {

namespace {
// Cuts one uncovered span at shading edges and grid columns; `s` and `g` only move forwards
// because the spans arrive from left to right.
void cutGap(int a, int b, const std::vector<Span>& shaded, const std::vector<int>& grid,
            std::size_t& s, std::size_t& g, std::vector<GroundPiece>& out) {
  for (int x = a; x < b;) {
    while (s < shaded.size() && shaded[s].right <= x)
      ++s;
    while (g < grid.size() && grid[g] < x)
      ++g;
    const bool inShade = s < shaded.size() && shaded[s].left <= x;
    if (g < grid.size() && grid[g] == x) {
      out.push_back({{x, x + 1}, inShade ? Ground::GridOnShaded : Ground::GridOnPlain});
      ++x;
      continue;
    }
    int next = b;
    if (s < shaded.size()) next = std::min(next, inShade ? shaded[s].right : shaded[s].left);
    if (g < grid.size()) next = std::min(next, grid[g]);
    out.push_back({{x, next}, inShade ? Ground::Shaded : Ground::Plain});
    x = next;
  }
}
}  // namespace

void composeStrip(int left, int right, const std::vector<Span>& covered,
                  const std::vector<Span>& shaded, const std::vector<int>& grid,
                  std::vector<GroundPiece>& out) {
  std::size_t s = 0, g = 0;
  int x = left;
  for (const Span& c : covered) {
    const int a = std::max(c.left, left), b = std::min(c.right, right);
    if (b <= a) continue;
    if (a > x) cutGap(x, a, shaded, grid, s, g, out);
    x = std::max(x, b);
  }
  if (x < right) cutGap(x, right, shaded, grid, s, g, out);
}

std::vector<Span> mergeSpans(std::vector<Span> spans) {
  std::erase_if(spans, [](const Span& s) { return s.right <= s.left; });
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.left < b.left; });
  std::vector<Span> out;
  for (const Span& s : spans)
    if (!out.empty() && s.left <= out.back().right)
      out.back().right = std::max(out.back().right, s.right);
    else
      out.push_back(s);
  return out;
}

}  // namespace ps::ui
