#include "runtime/schedules/CommaList.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace ps::runtime {
namespace {

std::string trimmed(std::string s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

}  // namespace

Result<std::vector<std::string>> splitCommaList(const std::string& text, const std::string& flag) {
  const std::string where = flag + " " + text + ": ";
  if (trimmed(text).empty()) return Error{where + "no values given"};
  std::vector<std::string> items;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    std::string item = trimmed(text.substr(pos, comma - pos));
    if (item.empty())
      return Error{where + "item " + std::to_string(items.size() + 1) +
                   " is empty (give a value between every two commas)"};
    items.push_back(std::move(item));
    pos = comma + 1;
  }
  return items;
}

Result<std::vector<double>> parseNumberList(const std::string& text, const std::string& flag) {
  auto items = splitCommaList(text, flag);
  if (!items) return std::move(items).takeError();
  std::vector<double> out;
  for (const std::string& item : *items) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (end != item.c_str() + item.size() || !std::isfinite(v))
      return Error{flag + " " + text + ": '" + item + "' is not a number"};
    out.push_back(v);
  }
  return out;
}

Result<std::vector<int>> parseIntList(const std::string& text, const std::string& flag) {
  auto items = splitCommaList(text, flag);
  if (!items) return std::move(items).takeError();
  std::vector<int> out;
  for (const std::string& item : *items) {
    int v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc{} || end != item.data() + item.size())
      return Error{flag + " " + text + ": '" + item + "' is not a whole number"};
    out.push_back(v);
  }
  return out;
}

}  // namespace ps::runtime
