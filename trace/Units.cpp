#include "trace/Units.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ps::trace {

std::string formatDuration(std::int64_t ns) {
  const double a = std::fabs(static_cast<double>(ns));
  char buf[48];
  if (a < 1e3)
    std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
  else if (a < 1e6)
    std::snprintf(buf, sizeof buf, "%.3f µs", static_cast<double>(ns) / 1e3);
  else if (a < 1e9)
    std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ns) / 1e9);
  return buf;
}

std::string formatBytes(std::int64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (std::fabs(v) >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  char buf[48];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  else
    std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return buf;
}

std::string formatPercent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %%", ratio * 100.0);
  return buf;
}

std::size_t textColumns(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char ch : text)
    if ((ch & 0xc0) != 0x80) ++n;
  return n;
}

std::string padRight(std::string text, std::size_t width) {
  const std::size_t n = textColumns(text);
  if (n < width) text.append(width - n, ' ');
  return text;
}

std::string padLeft(const std::string& text, std::size_t width) {
  const std::size_t n = textColumns(text);
  return n < width ? std::string(width - n, ' ') + text : text;
}

}  // namespace ps::trace
