#include "trace/import/GzipLimits.h"

#include <cstdlib>
#include <limits>

#include "trace/Units.h"

namespace ps::trace::import {
namespace {

constexpr const char* kRatioVariable = "PIPESCOPE_GZIP_MAX_RATIO";
constexpr const char* kBytesVariable = "PIPESCOPE_GZIP_MAX_BYTES";

Result<std::uint64_t> parseDigits(std::string_view digits) {
  if (digits.empty()) return Error{"no digits"};
  std::uint64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return Error{"not a number"};
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return Error{"too large"};
    value = value * 10 + d;
  }
  return value;
}

std::string bytesText(std::uint64_t bytes) {
  return formatBytes(static_cast<std::int64_t>(
      std::min<std::uint64_t>(bytes, std::numeric_limits<std::int64_t>::max())));
}

}  // namespace

Result<std::uint64_t> parseByteSize(std::string_view text) {
  int shift = 0;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K':
      case 'k':
        shift = 10;
        break;
      case 'M':
      case 'm':
        shift = 20;
        break;
      case 'G':
      case 'g':
        shift = 30;
        break;
      case 'T':
      case 't':
        shift = 40;
        break;
      default:
        break;
    }
  }
  auto value = parseDigits(shift ? text.substr(0, text.size() - 1) : text);
  if (!value) return value;
  if (*value > (std::numeric_limits<std::uint64_t>::max() >> shift)) return Error{"too large"};
  return *value << shift;
}

Result<GzipLimits> GzipLimits::fromEnvironment() {
  GzipLimits limits;
  if (const char* ratio = std::getenv(kRatioVariable); ratio != nullptr && *ratio != '\0') {
    auto value = parseDigits(ratio);
    if (!value)
      return Error{std::string(kRatioVariable) + "=" + ratio +
                   ": expected a whole number (0 for no ratio limit)"};
    limits.maxRatio = *value;
  }
  if (const char* bytes = std::getenv(kBytesVariable); bytes != nullptr && *bytes != '\0') {
    auto value = parseByteSize(bytes);
    if (!value || *value == 0)
      return Error{std::string(kBytesVariable) + "=" + bytes +
                   ": expected a size in bytes, or with a K, M, G or T suffix such as 64G"};
    limits.maxBytes = *value;
  }
  return limits;
}

std::uint64_t GzipLimits::limitFor(std::uint64_t compressedBytes) const {
  if (maxRatio == 0) return maxBytes;
  const std::uint64_t byRatio =
      compressedBytes > std::numeric_limits<std::uint64_t>::max() / maxRatio
          ? std::numeric_limits<std::uint64_t>::max()
          : compressedBytes * maxRatio;
  return std::min(maxBytes, std::max(ratioFloorBytes, byRatio));
}

std::string GzipLimits::refusal(const std::string& label, std::uint64_t compressedBytes) const {
  const std::uint64_t limit = limitFor(compressedBytes);
  if (limit >= maxBytes)
    return label + ": gzip expands beyond " + bytesText(limit) +
           ": refusing; that is more than this import allows (" + kBytesVariable +
           "=SIZE, e.g. 64G, raises the limit)";
  return label + ": gzip expands beyond " + bytesText(limit) + " (ratio " +
         std::to_string(maxRatio) + ":1 to its " + bytesText(compressedBytes) +
         "): refusing; profiler traces compress about 10:1, so this is likely not one (" +
         kRatioVariable + "=N raises the limit, or gunzip the file first)";
}

}  // namespace ps::trace::import
