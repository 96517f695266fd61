#include "trace/import/ImportName.h"

#include "trace/analysis/PathName.h"

namespace ps::trace::import {

std::string defaultImportName(std::string_view format, const std::vector<std::string>& files) {
  std::string name(format);
  if (files.empty()) return name + " import";
  name += ' ' + pathBaseName(files.front());
  if (files.size() > 1) name += " +" + std::to_string(files.size() - 1);
  return name;
}

}  // namespace ps::trace::import
