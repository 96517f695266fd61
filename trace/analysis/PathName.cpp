#include "trace/analysis/PathName.h"

namespace ps::trace {

std::string pathBaseName(std::string_view path) {
  while (path.size() > 1 && (path.back() == '/' || path.back() == '\\'))
    path.remove_suffix(1);
  const auto slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace ps::trace
