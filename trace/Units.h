#pragma once
// Human-readable durations and sizes, shared by the CLI report and the app.

#include <cstdint>
#include <string>

namespace ps::trace {

// 1234 -> "1.234 µs", 2500000 -> "2.500 ms"; three decimals in the largest fitting unit.
std::string formatDuration(std::int64_t ns);
// 1536 -> "1.50 KiB"; binary units.
std::string formatBytes(std::int64_t bytes);
// 0.2727 -> "27.27 %".
std::string formatPercent(double ratio);

}  // namespace ps::trace
