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

// Display columns of UTF-8 text ("µs" is two, not three bytes' worth) and the text padded to
// `width` of them, on the right or the left: the tables' alignment.
std::size_t textColumns(const std::string& text);
std::string padRight(std::string text, std::size_t width);
std::string padLeft(const std::string& text, std::size_t width);

}  // namespace ps::trace
