#pragma once
// A path's last component, as run names, compare titles and import names show a file.

#include <string>
#include <string_view>

namespace ps::trace {

// The last component of a path ("/a/b/rank0.sqlite" -> "rank0.sqlite"); the text itself when it
// has none.
std::string pathBaseName(std::string_view path);

}  // namespace ps::trace
