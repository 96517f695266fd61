#include "runtime/plan/PlanLimits.h"

#include <cmath>
#include <cstdio>

namespace ps::runtime {

std::string formatCount(double n) {
  if (!std::isfinite(n)) return "inf";
  if (std::fabs(n) < 1e7) return std::to_string(static_cast<std::int64_t>(std::llround(n)));
  int exponent = static_cast<int>(std::floor(std::log10(std::fabs(n))));
  double mantissa = n / std::pow(10.0, exponent);
  if (std::fabs(mantissa) >= 9.95) {  // 9.96e9 prints as 1.0e10, not 10.0e9
    mantissa /= 10;
    ++exponent;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fe%d", mantissa, exponent);
  return buf;
}

}  // namespace ps::runtime
