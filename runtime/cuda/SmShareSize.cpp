#include "runtime/cuda/SmShareSize.h"

#include <algorithm>

namespace ps::runtime {

unsigned smShareGranule(unsigned coscheduledAlignment, unsigned minPartitionSize,
                        int computeMajor) {
  const unsigned reported = std::max(coscheduledAlignment, minPartitionSize);
  if (reported > 0) return reported;
  if (computeMajor >= 9) return 8;
  if (computeMajor == 8) return 4;
  return 2;
}

unsigned smsPerShare(unsigned totalSms, int parts, unsigned granule) {
  if (parts < 1) return 0;
  const unsigned g = std::max(1u, granule);
  return totalSms / static_cast<unsigned>(parts) / g * g;
}

std::string describeSmShares(int ranks, int smsEach, int granule, int totalSms, int device) {
  return "green contexts on GPU " + std::to_string(device) + ": " + std::to_string(ranks) +
         " ranks x " + std::to_string(smsEach) + " of its " + std::to_string(totalSms) +
         " SMs (shares in multiples of " + std::to_string(granule) + ")";
}

}  // namespace ps::runtime
