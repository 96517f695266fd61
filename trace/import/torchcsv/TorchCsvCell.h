#pragma once
// One cell of a torch pipelining CSV (see TorchCsvRows.h): "2F0", "3SEND_F1", "0UNSHARD",
// "(0F7;7B3)OVERLAP_F_B". Split out so the file-level reader stays about rows and encodings.

#include <string_view>
#include <vector>

#include "trace/Result.h"
#include "trace/import/torchcsv/TorchCsvRows.h"

namespace ps::trace::import {

struct TorchCellPosition {
  std::string_view source;  // file name for messages
  int line = 0;             // 1-based
  int cell = 0;             // 1-based
};

// Parses a non-empty, trimmed cell into one action (or two for an overlap cell, chained by
// overlapNext on the first). Kinds are spelled as in the file; B/BW are mapped later, once the
// whole file shows which encoding it uses. Errors name the file, line, cell and what was expected.
[[nodiscard]] Result<std::vector<TorchCsvCellAction>> parseTorchCell(std::string_view cell,
                                                                     const TorchCellPosition& pos);

}  // namespace ps::trace::import
