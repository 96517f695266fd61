#pragma once
// The one splitter of comma-separated flag values (--rank-speed 1,1,2,1, --token-slices
// 512,512,1024, --stage-graph 0>1,1>2, explore's --microbatches 8,16, ...). An empty item
// ("1,,1,1", a leading or trailing comma) is refused by name instead of dropped: a dropped value
// shifts every later one onto the wrong rank or stage (issue 30, item 19).

#include <string>
#include <vector>

#include "trace/Result.h"

namespace ps::runtime {

// The items of `text` between commas, each trimmed of surrounding spaces. Errors read
// "--rank-speed 1,,1,1: item 2 is empty (give a value between every two commas)".
Result<std::vector<std::string>> splitCommaList(const std::string& text, const std::string& flag);

// splitCommaList, each item a finite number (strtod's whole text). Errors name the item.
Result<std::vector<double>> parseNumberList(const std::string& text, const std::string& flag);

// splitCommaList, each item a whole number (from_chars' whole text). Errors name the item.
Result<std::vector<int>> parseIntList(const std::string& text, const std::string& flag);

}  // namespace ps::runtime
