#pragma once
// The trace library's text (UTF-8 std::string_view) as a QString, without a copy to std::string.

#include <QString>

#include <string_view>

namespace ps::ui {

inline QString toQString(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

}  // namespace ps::ui
